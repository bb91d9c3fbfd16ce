/**
 * Why the claimer sends nothing now (claiming_paused{reason}): each reason on until it is switched off
 * or, given a duration, until that has passed. The claimer sends only while none is on.
 */
import type { PauseReason } from "../engine/pauseReasons.js";

export class ClaimPauses {
  readonly #on = new Map<PauseReason, NodeJS.Timeout | undefined>();
  readonly #observe: (reason: PauseReason, on: boolean) => void;
  readonly #resumed: () => void;

  /** `observe`: every switch of a reason; `resumed`: a reason went off (the pump may have work). */
  constructor(observe: (reason: PauseReason, on: boolean) => void, resumed: () => void) {
    this.#observe = observe;
    this.#resumed = resumed;
  }

  /** How many reasons are on (0: claims may leave). */
  get size(): number {
    return this.#on.size;
  }

  reasons(): PauseReason[] {
    return [...this.#on.keys()];
  }

  /** Switch a reason on or off; on `forMs` switches it off by itself. */
  set(reason: PauseReason, on: boolean, forMs?: number): void {
    const had = this.#on.has(reason);
    clearTimeout(this.#on.get(reason));
    if (on) {
      const timer = forMs === undefined ? undefined : setTimeout(() => this.set(reason, false), forMs);
      timer?.unref();
      this.#on.set(reason, timer);
      if (!had) this.#observe(reason, true);
    } else if (had) {
      this.#on.delete(reason);
      this.#observe(reason, false);
      this.#resumed();
    }
  }

  /** Clears the timers (the claimer stopped); the reasons stay as they are. */
  clearTimers(): void {
    for (const timer of this.#on.values()) clearTimeout(timer);
  }
}
