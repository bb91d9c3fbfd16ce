/**
 * The trading-rewards and campaign families (docs/protocol.md §A.2.2–A.2.4) the rewards poller sets:
 * the venue's field tables, each field a label value or a gauge, and the poll's own health.
 */
import type { Counter, Gauge, Registry } from "prom-client";
import { metricMakers } from "./metricMakers.js";

const POLL_TARGETS = ["epoch_info", "epoch_data", "campaign"] as const;
export type PollTarget = (typeof POLL_TARGETS)[number];

/** docs/protocol.md §A.2.2 numeric fields, as `epoch_info{field}`; times are converted to seconds. */
export const EPOCH_INFO_FIELDS = [
  "start_time_seconds",
  "end_time_seconds",
  "power_fees_paid_major",
  "power_fees_paid_alts",
  "power_staked_major",
  "power_staked_alts",
  "max_reward_amount",
  "k_constant_major",
  "k_constant_alts",
] as const;
/** docs/protocol.md §A.2.3 numeric fields, as `epoch_data{field}`; reward_status via REWARD_STATUS_VALUES. */
export const EPOCH_DATA_FIELDS = ["total_trader_score_major", "total_trader_score_alts", "r_major", "r_alts", "reward_status"] as const;

/**
 * `epoch_data{field="reward_status"}` as a number (docs/protocol.md §4 lists the values): 0 future epoch
 * ("0"), 1 Ongoing, 2 Pending, 3 Confirmed, -1 any value the venue adds later.
 */
export const REWARD_STATUS_VALUES: ReadonlyMap<string, number> = new Map([
  ["0", 0],
  ["Ongoing", 1],
  ["Pending", 2],
  ["Confirmed", 3],
]);

/** docs/protocol.md §A.2.4 field → gauge `liquidator_campaign_<name>{campaign_id}`; `divisor` converts ms to s. */
export const CAMPAIGN_GAUGES = [
  { field: "volume", name: "volume", help: "Campaign trading volume of the configured user" },
  { field: "filled_order_count", name: "filled_orders", help: "Filled orders in the campaign" },
  { field: "updated_time", name: "updated_timestamp_seconds", help: "When the venue last updated the statistics", divisor: 1000 },
  { field: "pnl", name: "pnl", help: "Campaign PnL" },
  { field: "total_deposit_amount", name: "deposit_amount", help: "Total deposits during the campaign" },
  { field: "total_withdrawal_amount", name: "withdrawal_amount", help: "Total withdrawals during the campaign" },
  { field: "start_account_value", name: "start_account_value", help: "Account value at campaign start" },
  { field: "end_account_value", name: "end_account_value", help: "Current account value (end_account_value)" },
  { field: "new_invited_referee", name: "new_invited_referees", help: "New referees invited" },
  { field: "new_traded_referee", name: "new_traded_referees", help: "New referees who traded" },
  { field: "total_staked_native", name: "staked_native", help: "Total staked, native token" },
  { field: "total_staked_esnative", name: "staked_esnative", help: "Total staked, escrowed native token" },
] as const;
export type CampaignField = (typeof CAMPAIGN_GAUGES)[number]["field"];

export interface RewardsMetrics {
  readonly epochCurrent: Gauge;
  readonly epochInfo: Gauge<"epoch" | "token" | "field">;
  readonly epochData: Gauge<"epoch" | "token" | "field">;
  readonly rewardsReleased: Gauge<"kind">;
  readonly campaign: Readonly<Record<CampaignField, Gauge<"campaign_id">>>;
  readonly pollErrors: Counter<"target">;
  readonly pollLastSuccess: Gauge<"target">;
}

export function createRewardsMetrics(registry: Registry, prefix: string): RewardsMetrics {
  const { counter, gauge } = metricMakers(registry, prefix);
  const statuses = [...REWARD_STATUS_VALUES].map(([status, value]) => `${value} ${status === "0" ? "future" : status}`);
  const metrics: RewardsMetrics = {
    epochCurrent: gauge("epoch_current", "Current trading-rewards epoch (epoch_info current_epoch)"),
    epochInfo: gauge("epoch_info", "Epoch parameters (docs/protocol.md §A.2.2) by epoch and field; times in seconds", [
      "epoch",
      "token",
      "field",
    ]),
    epochData: gauge(
      "epoch_data",
      `Epoch scores and rewards (docs/protocol.md §A.2.3) by epoch and field; reward_status ${statuses.join(", ")}, -1 other`,
      ["epoch", "token", "field"],
    ),
    rewardsReleased: gauge("rewards_released", "Total released trading rewards (epoch_data), kind native|escrow", ["kind"]),
    campaign: Object.fromEntries(CAMPAIGN_GAUGES.map((c) => [c.field, gauge(`campaign_${c.name}`, c.help, ["campaign_id"])])) as Record<
      CampaignField,
      Gauge<"campaign_id">
    >,
    pollErrors: counter("poll_errors_total", "Failed rewards/campaign polls by target", ["target"]),
    pollLastSuccess: gauge("poll_last_success_timestamp_seconds", "Time of the last successful poll by target", ["target"]),
  };
  for (const target of POLL_TARGETS) metrics.pollErrors.inc({ target }, 0);
  return metrics;
}
