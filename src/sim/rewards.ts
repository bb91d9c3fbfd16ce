/**
 * Trading-rewards epochs (docs/protocol.md §A.2.2, §A.2.3, §A.4.1, §A.4.2). The simulator's epochs advance on demand
 * (or on the scenario's timer): past epochs are Confirmed, the previous one Pending, the current one
 * Ongoing, and the next one is listed with reward_status "0" (docs/protocol.md §4).
 */
import type { Prng } from "./prng.js";

export interface EpochInfoRow {
  epoch_id: number;
  start_time: number;
  end_time: number;
  power_fees_paid_major: number;
  power_fees_paid_alts: number;
  power_staked_major: number;
  power_staked_alts: number;
  epoch_token: string;
  max_reward_amount: number;
  k_constant_major: number;
  k_constant_alts: number;
}

export type RewardStatus = "Confirmed" | "Pending" | "Ongoing" | "0";

export interface EpochDataRow {
  epoch_id: number;
  total_trader_score_major: number;
  total_trader_score_alts: number;
  epoch_token: string;
  reward_status: RewardStatus;
  r_major: number;
  r_alts: number;
}

interface Epoch {
  info: EpochInfoRow;
  scoreMajor: number;
  scoreAlts: number;
}

export interface RewardsOptions {
  /** Nominal epoch length, ms (the real program's are weeks). */
  epochLengthMs: number;
  /** Epoch that is Ongoing at start; must be ≥ 2 so that a Pending epoch exists. */
  startEpoch: number;
  token: string;
}

const DEFAULTS: RewardsOptions = { epochLengthMs: 14 * 86_400_000, startEpoch: 6, token: "ORDER" };
/** Split of each epoch's reward between major and other markets, and of released rewards native/escrow. */
const MAJOR_SHARE = 0.6;
const NATIVE_SHARE = 0.4;

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

export class Rewards {
  readonly #opts: RewardsOptions;
  readonly #prng: Prng;
  readonly #epochs: Epoch[] = [];
  #current: number;

  constructor(prng: Prng, now: number, options: Partial<RewardsOptions> = {}) {
    this.#opts = { ...DEFAULTS, ...options };
    if (!(this.#opts.epochLengthMs > 0)) throw new RangeError("epochLengthMs must be positive");
    if (!Number.isInteger(this.#opts.startEpoch) || this.#opts.startEpoch < 2) throw new RangeError("startEpoch must be an integer ≥ 2");
    this.#prng = prng;
    this.#current = this.#opts.startEpoch;
    const len = this.#opts.epochLengthMs;
    // The current epoch is 40 % through; earlier epochs tile back from its start.
    const currentStart = now - Math.round(len * 0.4);
    for (let id = 1; id <= this.#current + 1; id++) {
      const start = currentStart + (id - this.#current) * len;
      const past = id < this.#current;
      this.#epochs.push({
        info: this.#makeInfo(id, start, start + len),
        scoreMajor: past ? Math.round(prng.uniform(2e6, 9e6)) : id === this.#current ? Math.round(prng.uniform(5e5, 2e6)) : 0,
        scoreAlts: past ? Math.round(prng.uniform(1e6, 5e6)) : id === this.#current ? Math.round(prng.uniform(2e5, 1e6)) : 0,
      });
    }
  }

  get currentEpoch(): number {
    return this.#current;
  }

  #makeInfo(id: number, start: number, end: number): EpochInfoRow {
    const p = this.#prng;
    return {
      epoch_id: id,
      start_time: start,
      end_time: end,
      power_fees_paid_major: 0.7,
      power_fees_paid_alts: 0.7,
      power_staked_major: 0.3,
      power_staked_alts: 0.3,
      epoch_token: this.#opts.token,
      max_reward_amount: 1_000_000 + 250_000 * p.int(0, 4),
      k_constant_major: 1,
      k_constant_alts: 1.5,
    };
  }

  statusOf(epochId: number): RewardStatus {
    if (epochId > this.#current) return "0";
    if (epochId === this.#current) return "Ongoing";
    if (epochId === this.#current - 1) return "Pending";
    return "Confirmed";
  }

  /** Close the current epoch now: Ongoing → Pending, Pending → Confirmed, next → Ongoing. */
  advance(now: number): void {
    const cur = this.#epochs[this.#current - 1];
    const next = this.#epochs[this.#current];
    if (cur === undefined || next === undefined) throw new Error("epoch table out of step");
    cur.info.end_time = now;
    next.info.start_time = now;
    next.info.end_time = now + this.#opts.epochLengthMs;
    this.#current += 1;
    this.#epochs.push({
      info: this.#makeInfo(this.#current + 1, next.info.end_time, next.info.end_time + this.#opts.epochLengthMs),
      scoreMajor: 0,
      scoreAlts: 0,
    });
  }

  /** Trading goes on: the current epoch's scores grow. */
  accrue(dtSec: number): void {
    const cur = this.#epochs[this.#current - 1];
    if (cur === undefined || !(dtSec > 0)) return;
    cur.scoreMajor += Math.round(this.#prng.uniform(50, 150) * dtSec);
    cur.scoreAlts += Math.round(this.#prng.uniform(20, 80) * dtSec);
  }

  /** data of GET /v1/public/trading_rewards/epoch_info. */
  epochInfo(): { current_epoch: number; rows: EpochInfoRow[] } {
    return { current_epoch: this.#current, rows: this.#epochs.map((e) => ({ ...e.info })) };
  }

  /** data of GET /v1/public/trading_rewards/epoch_data. */
  epochData(): {
    total_released_trading_rewards_native: number;
    total_released_trading_rewards_escrow: number;
    current_epoch: number;
    rows: EpochDataRow[];
  } {
    let released = 0;
    const rows = this.#epochs.map((e): EpochDataRow => {
      const status = this.statusOf(e.info.epoch_id);
      const max = e.info.max_reward_amount;
      if (status === "Confirmed") released += max;
      return {
        epoch_id: e.info.epoch_id,
        total_trader_score_major: e.scoreMajor,
        total_trader_score_alts: e.scoreAlts,
        epoch_token: e.info.epoch_token,
        reward_status: status,
        r_major: status === "0" ? 0 : round6(max * MAJOR_SHARE),
        r_alts: status === "0" ? 0 : round6(max * (1 - MAJOR_SHARE)),
      };
    });
    return {
      total_released_trading_rewards_native: round6(released * NATIVE_SHARE),
      total_released_trading_rewards_escrow: round6(released * (1 - NATIVE_SHARE)),
      current_epoch: this.#current,
      rows,
    };
  }
}
