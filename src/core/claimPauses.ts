/**
 * Why the claimer sends nothing now (claiming_paused{reason}): each reason on until it is switched off
 * or, given a duration, until that has passed. The claimer sends only while none is on.
 */
import type { PauseReason } from "../engine/pauseReasons.js";
import type { Cancel } from "./corePort.js";

export class ClaimPauses {
  readonly #on = new Map<PauseReason, Cancel | undefined>();
  readonly #observe: (reason: PauseReason, on: boolean) => void;
  readonly #resumed: () => void;
  readonly #schedule: (ms: number, f: () => void) => Cancel;

  /** `observe`: every switch of a reason; `resumed`: a reason went off (the pump may have work). */
  constructor(observe: (reason: PauseReason, on: boolean) => void, resumed: () => void, schedule: (ms: number, f: () => void) => Cancel) {
    this.#observe = observe;
    this.#resumed = resumed;
    this.#schedule = schedule;
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
    this.#on.get(reason)?.();
    if (on) {
      const timer = forMs === undefined ? undefined : this.#schedule(forMs, () => this.set(reason, false));
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
    for (const cancel of this.#on.values()) cancel?.();
  }
}
