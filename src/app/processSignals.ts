/**
 * The operator's signals to a running process, each handled from the process's first moment (Node's
 * default action would kill it): SIGHUP reloads the config (`HupReloader`), SIGUSR2 asks for the
 * safe stop (`DrainSignal`). runDaemon.ts installs both before anything else starts.
 */

/**
 * SIGHUP re-reads the config. It is handled from the process's first moment (Node's default action
 * would kill it), ignored while starting (the config being started is the one just read), and
 * reloads run one after another so two quick signals cannot apply the older file last.
 */

export interface HupLogger {
  warn(obj: object, msg: string): void;
}

export class HupReloader {
  readonly #logger: HupLogger;
  #reload: (() => Promise<void>) | undefined;
  #chain: Promise<void> = Promise.resolve();
  readonly #onHup = (): void => {
    const reload = this.#reload;
    if (reload === undefined) return void this.#logger.warn({}, "SIGHUP during start-up ignored: the config being started is the one read");
    this.#chain = this.#chain.then(reload, reload);
  };

  constructor(logger: HupLogger) {
    this.#logger = logger;
    process.on("SIGHUP", this.#onHup);
  }

  enable(reload: () => Promise<void>): void {
    this.#reload = reload;
  }

  /** No new reload starts; waits for the one in progress. */
  async disable(): Promise<void> {
    this.#reload = undefined;
    await this.#chain;
  }

  detach(): void {
    this.#reload = undefined;
    process.off("SIGHUP", this.#onHup);
  }
}

/**
 * SIGUSR2 asks the daemon to stop safely (daemon/control/drain.ts): no new claims, unwind what claims
 * assigned until flat, then exit 0. Handled from the process's first moment (Node's default action
 * would kill it at once, positions open); one that arrives while starting is applied once started.
 */
export interface DrainSignalLogger {
  warn(obj: object, msg: string): void;
}

export class DrainSignal {
  readonly #logger: DrainSignalLogger;
  #drain: (() => void) | undefined;
  #requested = false;
  readonly #onSignal = (): void => {
    this.#requested = true;
    if (this.#drain === undefined) return void this.#logger.warn({}, "SIGUSR2 during start-up: draining once started");
    this.#drain();
  };

  constructor(logger: DrainSignalLogger) {
    this.#logger = logger;
    process.on("SIGUSR2", this.#onSignal);
  }

  enable(drain: () => void): void {
    this.#drain = drain;
    if (this.#requested) drain();
  }

  detach(): void {
    this.#drain = undefined;
    process.off("SIGUSR2", this.#onSignal);
  }
}
