/**
 * Polls the trading-rewards epochs (docs/protocol.md §A.2.2–A.2.3) and, when configured, one user's campaign
 * statistics (§A.2.4), and exposes them as gauges. At most three sequential GETs per round and at
 * least 1 s between rounds keep it far inside the public 10 requests/s (docs/protocol.md §A.8), leaving room
 * for the daemon's own public reads (the RestClient's limiter enforces the budget in any case).
 *
 * A failed poll is counted (`poll_errors_total{target}`) and the gauges keep their last values: a
 * venue hiccup must not blank a dashboard, and nothing here may take the daemon down.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { ConfigError } from "../../errors.js";
import type { Metrics } from "../../observe/metrics.js";
import {
  CAMPAIGN_GAUGES,
  type CampaignField,
  EPOCH_DATA_FIELDS,
  EPOCH_INFO_FIELDS,
  type PollTarget,
  REWARD_STATUS_VALUES,
} from "../../observe/rewardsMetrics.js";
import type { CampaignUserQuery } from "../../venue/restSchemas.js";

// Minimal shapes of the payloads (snake_case, as the RestClient returns them after validation).
export interface EpochInfoRowLike {
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
export interface EpochInfoLike {
  current_epoch: number;
  rows: readonly EpochInfoRowLike[];
}
export interface EpochDataRowLike {
  epoch_id: number;
  total_trader_score_major: number;
  total_trader_score_alts: number;
  epoch_token: string;
  reward_status: string | number;
  r_major: number;
  r_alts: number;
}
export interface EpochDataLike {
  total_released_trading_rewards_native: number;
  total_released_trading_rewards_escrow: number;
  current_epoch: number;
  rows: readonly EpochDataRowLike[];
}
export type CampaignUserLike = Record<CampaignField, number>;

export interface RequestOptions {
  signal?: AbortSignal;
}

/** What the poller needs of the RestClient. */
export interface RewardsSource {
  epochInfo(options: RequestOptions): Promise<EpochInfoLike>;
  epochData(options: RequestOptions): Promise<EpochDataLike>;
  campaignUser(query: CampaignUserQuery, options: RequestOptions): Promise<CampaignUserLike>;
}

type RewardsMetrics = Pick<
  Metrics,
  "epochCurrent" | "epochInfo" | "epochData" | "rewardsReleased" | "campaign" | "pollErrors" | "pollLastSuccess"
>;

export interface RewardsPollerOptions {
  source: RewardsSource;
  metrics: RewardsMetrics;
  /** rewards.poll_interval_ms, >= 1000. */
  intervalMs: number;
  campaign?: CampaignUserQuery | null;
  logger?: Pick<Logger, "info" | "warn" | "debug">;
  /** Epochs exposed: the current one, the next if listed, and `epochsKept - 1` before it. Default 3. */
  epochsKept?: number;
  /** Called after every round, successful or not (e.g. a watchdog kick). */
  onRound?: () => void;
  now?: () => number;
}

interface Sample {
  labels: Record<string, string>;
  value: number;
}

export class RewardsPoller {
  readonly #options: RewardsPollerOptions;
  readonly #kept: number;
  readonly #now: () => number;
  readonly #failing = new Set<PollTarget>();

  constructor(options: RewardsPollerOptions) {
    if (!Number.isInteger(options.intervalMs) || options.intervalMs < 1000) {
      throw new ConfigError("rewards.poll_interval_ms", `must be an integer >= 1000, got ${options.intervalMs}`);
    }
    const c = options.campaign;
    if (c != null) {
      if (!Number.isInteger(c.campaign_id)) throw new ConfigError("rewards.campaign.campaign_id", "must be an integer");
      if ((c.account_id === undefined) === (c.address === undefined)) {
        throw new ConfigError("rewards.campaign", "needs exactly one of account_id / address");
      }
    }
    this.#kept = options.epochsKept ?? 3;
    if (!Number.isInteger(this.#kept) || this.#kept < 1) throw new RangeError("epochsKept must be a positive integer");
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Polls now and every interval until `signal` fires; never rejects. */
  async start(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.pollOnce(signal);
      try {
        this.#options.onRound?.();
      } catch {
        // a hook's failure is the hook's business; the poller keeps polling
      }
      try {
        await sleep(this.#options.intervalMs, undefined, { signal });
      } catch {
        // aborted: the loop condition ends it
      }
    }
  }

  /** One round: epoch_info, epoch_data, then the campaign if configured. Never rejects. */
  async pollOnce(signal?: AbortSignal): Promise<void> {
    const opts: RequestOptions = signal !== undefined ? { signal } : {};
    const m = this.#options.metrics;
    await this.#poll("epoch_info", signal, async () => {
      const info = await this.#options.source.epochInfo(opts);
      const samples = epochInfoSamples(info, this.#kept);
      m.epochCurrent.set(checkedInt(info.current_epoch, "current_epoch"));
      apply(m.epochInfo, samples);
    });
    await this.#poll("epoch_data", signal, async () => {
      const data = await this.#options.source.epochData(opts);
      const samples = epochDataSamples(data, this.#kept);
      const native = checkedNumber(data.total_released_trading_rewards_native, "total_released_trading_rewards_native");
      const escrow = checkedNumber(data.total_released_trading_rewards_escrow, "total_released_trading_rewards_escrow");
      m.epochCurrent.set(checkedInt(data.current_epoch, "current_epoch"));
      apply(m.epochData, samples);
      m.rewardsReleased.set({ kind: "native" }, native);
      m.rewardsReleased.set({ kind: "escrow" }, escrow);
    });
    const campaign = this.#options.campaign;
    if (campaign != null) {
      await this.#poll("campaign", signal, async () => {
        const stats = await this.#options.source.campaignUser(campaign, opts);
        const id = String(campaign.campaign_id);
        // Every field is checked before any gauge changes, so a bad payload leaves the old values.
        const values = CAMPAIGN_GAUGES.map(
          (g) => [g.field, checkedNumber(stats[g.field], g.field) / ("divisor" in g ? g.divisor : 1)] as const,
        );
        for (const [field, value] of values) m.campaign[field].set({ campaign_id: id }, value);
      });
    }
  }

  async #poll(target: PollTarget, signal: AbortSignal | undefined, run: () => Promise<void>): Promise<void> {
    if (signal?.aborted) return;
    try {
      await run();
      this.#options.metrics.pollLastSuccess.set({ target }, this.#now() / 1000);
      if (this.#failing.delete(target)) this.#options.logger?.info({ target }, "rewards poll recovered");
    } catch (err) {
      if (signal?.aborted) return; // shutdown, not a failure
      this.#options.metrics.pollErrors.inc({ target });
      // Once per outage at warn; a venue down for an hour must not flood the log.
      if (this.#failing.has(target)) this.#options.logger?.debug({ target, err }, "rewards poll failed");
      else this.#options.logger?.warn({ target, err }, "rewards poll failed");
      this.#failing.add(target);
    }
  }
}

function epochInfoSamples(info: EpochInfoLike, kept: number): Sample[] {
  return epochSamples(info, kept, EPOCH_INFO_FIELDS, (row) => ({
    start_time_seconds: checkedNumber(row.start_time, "start_time") / 1000,
    end_time_seconds: checkedNumber(row.end_time, "end_time") / 1000,
    power_fees_paid_major: checkedNumber(row.power_fees_paid_major, "power_fees_paid_major"),
    power_fees_paid_alts: checkedNumber(row.power_fees_paid_alts, "power_fees_paid_alts"),
    power_staked_major: checkedNumber(row.power_staked_major, "power_staked_major"),
    power_staked_alts: checkedNumber(row.power_staked_alts, "power_staked_alts"),
    max_reward_amount: checkedNumber(row.max_reward_amount, "max_reward_amount"),
    k_constant_major: checkedNumber(row.k_constant_major, "k_constant_major"),
    k_constant_alts: checkedNumber(row.k_constant_alts, "k_constant_alts"),
  }));
}

function epochDataSamples(data: EpochDataLike, kept: number): Sample[] {
  return epochSamples(data, kept, EPOCH_DATA_FIELDS, (row) => ({
    total_trader_score_major: checkedNumber(row.total_trader_score_major, "total_trader_score_major"),
    total_trader_score_alts: checkedNumber(row.total_trader_score_alts, "total_trader_score_alts"),
    r_major: checkedNumber(row.r_major, "r_major"),
    r_alts: checkedNumber(row.r_alts, "r_alts"),
    reward_status: rewardStatusValue(row.reward_status),
  }));
}

/** One sample per field of each epoch row in the window (current - kept, current + 1]; throws on a malformed payload. */
function epochSamples<R extends { epoch_id: number; epoch_token: string }, F extends string>(
  payload: { current_epoch: number; rows: readonly R[] },
  kept: number,
  fields: readonly F[],
  valuesOf: (row: R) => Record<F, number>,
): Sample[] {
  const current = checkedInt(payload.current_epoch, "current_epoch");
  const out: Sample[] = [];
  for (const row of rowsOf(payload.rows)) {
    const epoch = checkedInt(row.epoch_id, "epoch_id");
    if (epoch <= current - kept || epoch > current + 1) continue;
    const base = { epoch: String(epoch), token: tokenLabel(row.epoch_token) };
    const values = valuesOf(row);
    for (const field of fields) out.push({ labels: { ...base, field }, value: values[field] });
  }
  return out;
}

/** REWARD_STATUS_VALUES, -1 for a status the venue adds later. */
function rewardStatusValue(status: string | number): number {
  return REWARD_STATUS_VALUES.get(String(status)) ?? -1;
}

/** Replaces every series of the gauge at once (no scrape can run in between: one JS turn). */
function apply(gauge: RewardsMetrics["epochInfo"], samples: readonly Sample[]): void {
  gauge.reset();
  for (const s of samples) gauge.set(s.labels, s.value);
}

function rowsOf<T>(rows: readonly T[]): readonly T[] {
  if (!Array.isArray(rows)) throw new TypeError("rows is not an array");
  return rows;
}

/** A label value from the venue must stay short and tame: tokens are short upper-case symbols. */
function tokenLabel(token: unknown): string {
  return typeof token === "string" && /^[A-Za-z0-9._-]{1,24}$/.test(token) ? token : "other";
}

function checkedNumber(v: unknown, field: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new TypeError(`${field} is not a finite number`);
  return v;
}

function checkedInt(v: unknown, field: string): number {
  if (!Number.isSafeInteger(v)) throw new TypeError(`${field} is not an integer`);
  return v as number;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { rewardStatusValue as rewardStatusValueForTests };
