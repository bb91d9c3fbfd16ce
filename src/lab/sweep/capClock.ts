/** At the cap: exposure within 1 % of `policy.max_total_exposure`. */
const AT_CAP = 0.99;

/**
 * Time at the exposure cap, the one fact that reads a policy key besides the decision: variants
 * replayed as one (decisionGroup.ts) each keep their own, fed the same exposure and refusals.
 */
export class CapClock {
  readonly #cap: number;
  /** A claim was refused for the cap and exposure has not fallen since. */
  #refused = false;
  #since: number | undefined;
  #ms = 0;
  #lastExposure = 0;

  /** `cap`: the variant's `policy.max_total_exposure`. */
  constructor(cap: number) {
    this.#cap = cap;
  }

  /** The exposure at the instant `at` ends. */
  point(at: number, exposure: number): void {
    // At the cap: exposure within 1 % of it, or from a claim refused for it until exposure next falls.
    if (exposure < this.#lastExposure) this.#refused = false;
    this.#lastExposure = exposure;
    this.#atCap(at, this.#refused || exposure >= this.#cap * AT_CAP);
  }

  /** A claim was refused for the exposure cap at `at`. */
  refused(at: number): void {
    this.#refused = true;
    this.#atCap(at, true);
  }

  /** Seconds at the cap up to `now` (the end of the replay). */
  finish(now: number): number {
    if (this.#since !== undefined) this.#ms += now - this.#since;
    this.#since = undefined;
    return Math.round(this.#ms) / 1000;
  }

  #atCap(at: number, now: boolean): void {
    if (now) this.#since ??= at;
    else if (this.#since !== undefined) {
      this.#ms += at - this.#since;
      this.#since = undefined;
    }
  }
}
