/**
 * The daemon's trading state (docs/operations.md "Protections", "Stopping safely"): `active` claims as usual;
 * `reducing` and `halted` claim nothing new while unwinding goes on — reducing risk is never
 * blocked. Whoever sets the state gives the reason (`drain` for SIGUSR2; the protections later).
 * Claiming is paused under the state's name (`claiming_paused{reason="reducing"}`).
 */
export const TRADING_STATES = ["active", "reducing", "halted"] as const;
export type TradingStateName = (typeof TRADING_STATES)[number];

export interface TradingStateOptions {
  /** Pause or resume claiming for `reason` (the claimer). */
  pause(reason: Exclude<TradingStateName, "active">, on: boolean): void;
  /** Told of every change (metrics). */
  changed?(state: TradingStateName, reason: string | undefined): void;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

export class TradingState {
  readonly #o: TradingStateOptions;
  #state: TradingStateName = "active";
  #reason: string | undefined;

  constructor(options: TradingStateOptions) {
    this.#o = options;
    options.changed?.("active", undefined);
  }

  get state(): TradingStateName {
    return this.#state;
  }

  get reason(): string | undefined {
    return this.#reason;
  }

  set(state: TradingStateName, reason: string | undefined): void {
    if (state === this.#state && reason === this.#reason) return;
    const was = this.#state;
    this.#state = state;
    this.#reason = state === "active" ? undefined : reason;
    // The new pause before the old one is lifted: no instant with claiming allowed in between.
    if (state !== "active") this.#o.pause(state, true);
    if (was !== "active" && was !== state) this.#o.pause(was, false);
    this.#o.changed?.(state, this.#reason);
    const log = { state, was, reason: this.#reason };
    if (state === "active") this.#o.logger.info(log, "trading state: active (claiming)");
    else this.#o.logger.warn(log, `trading state: ${state} (no new claims; unwinding goes on)`);
  }
}
