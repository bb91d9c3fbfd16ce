/**
 * A sleep that someone else can cut short: loops that normally run on an interval but must run at
 * once on an event (a reconnect, entering degraded mode) wait on it.
 */
export class Waker {
  #wake: (() => void) | undefined;
  #pending = false;

  /**
   * Resolves after `ms`, on `wake()`, or when `signal` aborts; never rejects. A `wake()` that came
   * while nobody was waiting ends the next wait at once (the event is not lost between two rounds).
   */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#pending || signal.aborted) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.#wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  wake(): void {
    if (this.#wake !== undefined) this.#wake();
    else this.#pending = true;
  }
}
