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
