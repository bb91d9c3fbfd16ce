/**
 * Protections (docs/operations.md "Protections"): pure rules over the net P&L (realized + unrealized since the
 * journal began, from the P&L ledger and marks) that say whether new claims may be made. No clock:
 * every call is given the time; the snapshot is plain data so the daemon can journal it and a
 * restart, a takeover or the lab can carry on from it.
 *
 * - daily loss: the UTC day's net (net now − net at the day's first observation) at or below
 *   −`dailyLossLimit` → `halted` until the next UTC day or a re-arm;
 * - drawdown: net this far below its running peak → `reducing` until it is back within half the
 *   limit of the peak, or a re-arm;
 * - loss streak: `lossStreak` claims in a row on one symbol each closed (flat) at a net loss, the
 *   liquidator fee and trading fees included → that symbol is not claimed for `cooldownS`.
 * Halted wins over reducing. Nothing here ever limits unwinding: only new claims ask the gate.
 */
import { utcDay } from "./utcDay.js";

export const PROTECTIONS = ["daily_loss", "drawdown", "loss_streak"] as const;
export type ProtectionName = (typeof PROTECTIONS)[number];
export type ProtectionState = "active" | "reducing" | "halted";

export interface ProtectionLimits {
  /** Quote; null = off. */
  dailyLossLimit: number | null;
  /** Quote; null = off. */
  drawdownLimit: number | null;
  /** Losing claims in a row on one symbol; null = off. */
  lossStreak: number | null;
  cooldownS: number;
}

/** Everything the rules remember: what the journal keeps. */
export interface ProtectionSnapshot {
  /** Daily loss limit reached on `day`. */
  halted: boolean;
  /** Drawdown limit reached and not recovered. */
  reducing: boolean;
  /** UTC day (YYYY-MM-DD) of `dayBaseline`; "" before the first observation. */
  day: string;
  /** Net at the day's first observation (or at the last re-arm that day). */
  dayBaseline: number;
  /** Running peak of the net; null before the first observation. */
  peak: number | null;
  /** Losing claims in a row per symbol (a symbol absent: 0). */
  streaks: Record<string, number>;
  /** Per symbol, the time (ms) until which it is not claimed. */
  cooldowns: Record<string, number>;
}

export interface ProtectionTrip {
  protection: ProtectionName;
  at: number;
  /** The symbol cooled (loss streak). */
  symbol?: string;
  /** The net P&L (daily loss: of the day; drawdown: below the peak; loss streak: of the last claim). */
  value: number;
}

export interface ProtectionStep {
  trips: ProtectionTrip[];
  /** The snapshot changed in a way worth keeping (state, day, streak, cooldown; not a mere new peak). */
  changed: boolean;
}

function freshProtections(): ProtectionSnapshot {
  return { halted: false, reducing: false, day: "", dayBaseline: 0, peak: null, streaks: {}, cooldowns: {} };
}

export function protectionState(s: ProtectionSnapshot): ProtectionState {
  return s.halted ? "halted" : s.reducing ? "reducing" : "active";
}

/** Why the state is not active: the protection that holds it there. */
function protectionReason(s: ProtectionSnapshot): ProtectionName | undefined {
  return s.halted ? "daily_loss" : s.reducing ? "drawdown" : undefined;
}

export class Protections {
  #limits: ProtectionLimits;
  #s: ProtectionSnapshot;

  constructor(limits: ProtectionLimits, snapshot: ProtectionSnapshot = freshProtections()) {
    this.#limits = limits;
    this.#s = structuredClone(snapshot);
  }

  get snapshot(): ProtectionSnapshot {
    return this.#s;
  }

  get state(): ProtectionState {
    return protectionState(this.#s);
  }

  get reason(): ProtectionName | undefined {
    return protectionReason(this.#s);
  }

  get limits(): ProtectionLimits {
    return this.#limits;
  }

  setLimits(limits: ProtectionLimits): void {
    this.#limits = limits;
  }

  /** Carry on from a journaled snapshot (restart, takeover). */
  restore(snapshot: ProtectionSnapshot): void {
    this.#s = structuredClone(snapshot);
  }

  /** The account's net P&L (realized + unrealized since the journal began) as of `now`. */
  observe(net: number, now: number): ProtectionStep {
    const s = this.#s;
    const l = this.#limits;
    const trips: ProtectionTrip[] = [];
    let changed = false;
    const day = utcDay(now);
    if (s.day !== day) {
      // A new UTC day: its loss is counted from here, and the daily halt of the day before ends.
      s.day = day;
      s.dayBaseline = net;
      s.halted = false;
      changed = true;
    }
    for (const [symbol, until] of Object.entries(s.cooldowns)) {
      if (until <= now) {
        delete s.cooldowns[symbol];
        changed = true;
      }
    }
    const dayNet = net - s.dayBaseline;
    if (l.dailyLossLimit !== null && !s.halted && dayNet <= -l.dailyLossLimit) {
      s.halted = true;
      changed = true;
      trips.push({ protection: "daily_loss", at: now, value: dayNet });
    }
    s.peak = s.peak === null ? net : Math.max(s.peak, net);
    const down = s.peak - net;
    if (l.drawdownLimit === null) {
      if (s.reducing) {
        s.reducing = false;
        changed = true;
      }
    } else if (!s.reducing && down >= l.drawdownLimit) {
      s.reducing = true;
      changed = true;
      trips.push({ protection: "drawdown", at: now, value: -down });
    } else if (s.reducing && down <= l.drawdownLimit / 2) {
      s.reducing = false;
      changed = true;
    }
    if (l.dailyLossLimit === null && s.halted) {
      s.halted = false;
      changed = true;
    }
    return { trips, changed };
  }

  /** A claim whose lots are all closed (the ledger's `closed`): its net, liquidator fee and fees included. */
  claimClosed(symbols: Iterable<string>, net: number, now: number): ProtectionStep {
    const n = this.#limits.lossStreak;
    const s = this.#s;
    const trips: ProtectionTrip[] = [];
    if (n === null) return { trips, changed: false };
    for (const symbol of symbols) {
      if (net >= 0) {
        if (s.streaks[symbol] !== undefined) delete s.streaks[symbol];
        continue;
      }
      const streak = (s.streaks[symbol] ?? 0) + 1;
      if (streak < n) {
        s.streaks[symbol] = streak;
        continue;
      }
      delete s.streaks[symbol];
      s.cooldowns[symbol] = now + this.#limits.cooldownS * 1000;
      trips.push({ protection: "loss_streak", at: now, symbol, value: net });
    }
    return { trips, changed: true };
  }

  /**
   * Why a liquidation of `symbols` may not be claimed now: `protection` (not active), `cooldown` (one
   * of its symbols cools after a loss streak), or undefined.
   */
  gate(symbols: Iterable<string>, now: number): "protection" | "cooldown" | undefined {
    const s = this.#s;
    if (s.halted || s.reducing) return "protection";
    for (const symbol of symbols) {
      const until = s.cooldowns[symbol];
      if (until !== undefined && until > now) return "cooldown";
    }
    return undefined;
  }

  /**
   * The operator re-arms (SIGHUP): back to active, streaks and cooldowns cleared, and the limits
   * measured from here: the day's baseline and the peak become the current net. A limit still
   * breached therefore does not trip again at once; it trips again after a further loss of its size.
   */
  rearm(net: number, now: number): void {
    this.#s = { ...freshProtections(), day: utcDay(now), dayBaseline: net, peak: net };
  }
}
