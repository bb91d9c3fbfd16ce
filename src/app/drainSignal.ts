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
