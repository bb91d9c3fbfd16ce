/**
 * "Stop safely" (SIGUSR2, docs/runbook.md "Stopping safely"): claim nothing new at once (state
 * `reducing`), keep unwinding what claims assigned, and once nothing is left — no claim in flight or
 * of unknown outcome, every claimed position flat (or dust), no unwind order out — call `drained`
 * (the process then exits 0). Dust (below the venue's minimum order) is reported as such, never as
 * a position left open. Positions the daemon cannot close (dry run, `unwind.mode: off`, held
 * symbols, a symbol halted by a margin refusal) do not hold the exit up: they are logged as left,
 * and the result says so (the process exits EXIT_POSITIONS_OPEN).
 */
import { logMoney } from "../../observe/logMoney.js";
import { type LeftPosition, leftForLog, summarizeLeft } from "../unwind/positionsLeft.js";
import type { TradingState } from "./tradingState.js";

/** How a safe stop ended: `flat` when nothing above dust stays open. */
export interface DrainResult {
  flat: boolean;
  /** Σ notional of the dust left, quote. */
  dustNotional: number;
  /** What stays open above dust. */
  open: LeftPosition[];
}

export interface DrainOptions {
  trading: Pick<TradingState, "set">;
  /** Claims sent whose outcome is not settled yet (in flight, or unknown). */
  unsettledClaims(): number;
  /** What the unwinder would still close (unwinder.ts `remaining`). */
  remaining(): readonly { symbol: string; marginMode: string; qty: number }[];
  /** Whether the venue has reported the account's positions (before that, nothing is known flat). */
  positionsKnown(): boolean;
  /** Claimed positions not flat, dust included (positionsLeft.ts), logged at the end. */
  leftOpen(): readonly LeftPosition[];
  drained(result: DrainResult): void;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
  /** How often the end condition is checked. */
  checkMs?: number;
}

export class Drain {
  readonly #options: DrainOptions;
  #timer: NodeJS.Timeout | undefined;
  #lastReport = "";

  constructor(options: DrainOptions) {
    this.#options = options;
  }

  get draining(): boolean {
    return this.#timer !== undefined;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#options.trading.set("reducing", "drain");
    this.#options.logger.warn({}, "drain: no new claims; unwinding what claims assigned until flat, then exiting");
    this.#timer = setInterval(() => this.#check(), this.#options.checkMs ?? 250);
    this.#check();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    const claims = this.#options.unsettledClaims();
    const remaining = this.#options.positionsKnown() ? this.#options.remaining() : undefined;
    const report = JSON.stringify({ claims, remaining });
    if (report !== this.#lastReport) {
      this.#lastReport = report;
      this.#options.logger.info({ claimsUnsettled: claims, positions: remaining ?? "not known yet" }, "drain: waiting");
    }
    if (claims > 0 || remaining === undefined || remaining.length > 0) return;
    this.stop();
    const { open, dust, dustNotional } = summarizeLeft(this.#options.leftOpen());
    const log = this.#options.logger;
    const dustFields = { dustQuote: logMoney(dustNotional), dust: leftForLog(dust) };
    if (open.length > 0)
      log.error({ positions: leftForLog(open), ...dustFields }, "drain: done; positions above dust stay open (not unwound by this daemon)");
    else if (dust.length > 0) log.info(dustFields, "drain: done; flat except dust");
    else log.info({}, "drain: done; every claimed position is flat");
    this.#options.drained({ flat: open.length === 0, dustNotional, open });
  }
}
