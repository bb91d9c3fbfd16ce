/**
 * The protections (engine/protections.ts) run in the daemon: fed the net P&L (the ledger's realized
 * plus the open lots at mark) after every settled claim and unwind fill and once a second; they
 * drive the trading state (halted / reducing / active), gate new claims (`protection`, `cooldown`)
 * and journal their state whenever it changes, so a restart (kill -9) or a new leader carries on
 * where they were. Only the replica that may send observes and writes: a standby's ledger is empty
 * until it leads. Unwinding never asks the gate.
 */

import type { ProtectionRecord } from "../../core/journalRecords.js";
import type { ClaimPnl, PnlLedger } from "../../engine/pnlLedger.js";
import {
  PROTECTIONS,
  type ProtectionLimits,
  type ProtectionSnapshot,
  type ProtectionStep,
  Protections,
  type ProtectionTrip,
  protectionState,
} from "../../engine/protections.js";
import type { Liquidation } from "../../engine/types.js";
import { logMoney } from "../../observe/logMoney.js";
import type { TradingState } from "./tradingState.js";

/** Skip reasons the gate gives: liquidations skipped for them are re-decided when it opens. */
const PROTECTION_SKIPS: ReadonlySet<string> = new Set(["protection", "cooldown"]);

export interface ProtectionGuardOptions {
  limits: ProtectionLimits;
  /** The trading core's ledger (its lots are what is ours: no lot the claims did not open). */
  ledger(): Pick<PnlLedger, "totals" | "unrealized" | "held" | "bySymbol">;
  /** A fresh mark (policy.max_mark_age_ms), else undefined: a stale one judges nothing. */
  mark(symbol: string): number | undefined;
  trading: Pick<TradingState, "set" | "state" | "reason">;
  store: { append(record: ProtectionRecord): void; mayLead(): boolean };
  /** Re-decide what the gate skipped (the claimer's retrySkipped). */
  reopen(reasons: ReadonlySet<string>): void;
  /** A protection tripped (what, when, on which symbol, at what value). */
  tripped(trip: ProtectionTrip): void;
  now?: () => number;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** How often the net is observed besides claims and fills (default 1 s). */
  intervalMs?: number;
}

export class ProtectionGuard {
  readonly #o: ProtectionGuardOptions;
  readonly #rules: Protections;
  readonly #now: () => number;
  /** The peak last journaled: a rise of a tenth of the drawdown limit is journaled too. */
  #journaledPeak: number | null = null;

  constructor(options: ProtectionGuardOptions) {
    this.#o = options;
    this.#rules = new Protections(options.limits);
    this.#now = options.now ?? Date.now;
  }

  get snapshot(): ProtectionSnapshot {
    return this.#rules.snapshot;
  }

  /** The claim pipeline's gate (claimPipeline.ts): a trading state other than active, or a cooling symbol. */
  readonly gate = (liquidation: Liquidation): "protection" | "cooldown" | undefined => {
    if (this.#o.trading.state !== "active") return "protection";
    const positions = liquidation.positions;
    if (!Array.isArray(positions)) return undefined;
    return this.#rules.gate(
      positions.map((p) => p.symbol),
      this.#now(),
    );
  };

  /**
   * The net P&L now, or undefined while a held symbol has no fresh mark: an unpriced lot would read
   * as 0, a stale one as a price long gone; either way the state holds until marks are fresh.
   */
  net(): number | undefined {
    const l = this.#o.ledger();
    for (const symbol of l.bySymbol().keys()) if (l.held(symbol) !== 0 && this.#o.mark(symbol) === undefined) return undefined;
    return l.totals().net + l.unrealized(this.#o.mark);
  }

  /** Observe the net now (after a settled claim, an unwind fill, and every second). */
  check(): void {
    if (!this.#o.store.mayLead()) return;
    const net = this.net();
    if (net === undefined) return;
    const now = this.#now();
    this.#step(this.#rules.observe(net, now), now);
  }

  /** The ledger's `closed`: a claim flat, its net known (loss streaks). */
  claimClosed(claim: ClaimPnl): void {
    const now = this.#now();
    const net = claim.liquidatorFee + claim.trading - claim.fees;
    this.#step(this.#rules.claimClosed(claim.symbols, net, now), now);
  }

  /**
   * Carry on from the journal's last protections record (none: fresh, as a journal from before
   * protections). The ledger was folded before this guard listened: its history is not new losses.
   */
  adopt(r: ProtectionRecord | undefined): void {
    if (r !== undefined) {
      this.#rules.restore({
        halted: r.halted,
        reducing: r.reducing,
        day: r.day,
        dayBaseline: r.dayBaseline,
        peak: r.peak,
        streaks: { ...r.streaks },
        cooldowns: { ...r.cooldowns },
      });
      this.#journaledPeak = r.peak;
    }
    this.#apply();
    if (r !== undefined && protectionState(r) !== "active")
      this.#o.logger.warn(
        { state: r.state, since: r.at },
        "protections: the journal says claiming is stopped; `liquidator rearm` (or a changed protections section and SIGHUP) re-arms",
      );
  }

  /**
   * Re-armed (engine/protections.ts `rearm`: limits count from the current net): by SIGHUP when the
   * `protections` section changed (`limits`: the new ones), or by `liquidator rearm` (`limits`
   * undefined: the running ones). `why` is logged.
   */
  rearm(limits: ProtectionLimits | undefined, why: "config" | "command"): void {
    if (limits !== undefined) this.#rules.setLimits(limits);
    const now = this.#now();
    const net = this.net() ?? this.#o.ledger().totals().net;
    const was = this.#rules.state;
    this.#rules.rearm(net, now);
    this.#journal(now, { rearmed: true });
    this.#apply();
    this.#o.logger.info(
      { was, net: logMoney(net), by: why === "config" ? "SIGHUP: the protections section changed" : "liquidator rearm" },
      "protections re-armed",
    );
    this.#o.reopen(PROTECTION_SKIPS);
  }

  /** Observe now and every `intervalMs` (marks move between claims and fills) until the returned stop is called. */
  start(): () => void {
    // The first look now, before anything can be claimed: the day's loss counts from the net at the
    // start, not from the first tick's net, which may already hold a claim's loss.
    this.check();
    const timer = setInterval(() => this.check(), this.#o.intervalMs ?? 1000);
    timer.unref();
    return () => clearInterval(timer);
  }

  #step(step: ProtectionStep, now: number): void {
    for (const trip of step.trips) {
      this.#o.tripped(trip);
      this.#o.logger.warn({ ...trip, value: logMoney(trip.value) }, "protection tripped");
      this.#journal(now, { trip: trip.protection, ...(trip.symbol !== undefined ? { symbol: trip.symbol } : {}) });
    }
    const peak = this.#rules.snapshot.peak;
    const limit = this.#rules.limits.drawdownLimit;
    const peakMoved = limit !== null && peak !== null && (this.#journaledPeak === null || peak - this.#journaledPeak >= limit / 10);
    if (step.trips.length === 0 && (step.changed || peakMoved)) this.#journal(now, {});
    const was = this.#o.trading.state;
    this.#apply();
    // A state that opened again, or a cooldown that ended: what the gate skipped is decided anew.
    if ((was !== "active" && this.#o.trading.state === "active") || (step.changed && step.trips.length === 0))
      this.#o.reopen(PROTECTION_SKIPS);
  }

  /** The trading state follows the rules, except during a drain (SIGUSR2), which only ends the process. */
  #apply(): void {
    const t = this.#o.trading;
    if (t.reason === "drain") return;
    const state = this.#rules.state;
    t.set(state, this.#rules.reason);
  }

  #journal(now: number, extra: Partial<ProtectionRecord>): void {
    if (!this.#o.store.mayLead()) return;
    const s = this.#rules.snapshot;
    this.#journaledPeak = s.peak;
    this.#o.store.append({
      t: "protection",
      at: now,
      state: protectionState(s),
      halted: s.halted,
      reducing: s.reducing,
      day: s.day,
      dayBaseline: s.dayBaseline,
      peak: s.peak,
      streaks: { ...s.streaks },
      cooldowns: { ...s.cooldowns },
      ...extra,
    });
  }
}

/** The config section as the engine's limits. */
export function protectionLimits(c: {
  daily_loss_limit: number | null;
  drawdown_limit: number | null;
  loss_streak: number | null;
  cooldown_s: number;
}): ProtectionLimits {
  return { dailyLossLimit: c.daily_loss_limit, drawdownLimit: c.drawdown_limit, lossStreak: c.loss_streak, cooldownS: c.cooldown_s };
}

export { PROTECTIONS };
