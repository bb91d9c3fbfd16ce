import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  type CampaignUserLike,
  type EpochDataLike,
  type EpochInfoLike,
  type RequestOptions,
  RewardsPoller,
  type RewardsSource,
  rewardStatusValueForTests,
} from "../../src/daemon/feeds/rewardsPoller.js";
import { AbortedError, ConfigError } from "../../src/errors.js";
import { createLogger } from "../../src/observe/logger.js";
import { createMetrics, type Metrics } from "../../src/observe/metrics.js";
import { TransportError } from "../../src/venue/errors.js";
import type { CampaignUserQuery } from "../../src/venue/restSchemas.js";
import { waitFor } from "../support/wait.js";

const DAY = 86_400_000;
const T0 = 1_717_200_000_000; // start of epoch 1, ms

function epochInfo(current: number, maxReward = 1000): EpochInfoLike {
  const rows = [];
  for (let e = 1; e <= current + 2; e++) {
    rows.push({
      epoch_id: e,
      start_time: T0 + (e - 1) * 14 * DAY,
      end_time: T0 + e * 14 * DAY,
      power_fees_paid_major: 0.5,
      power_fees_paid_alts: 0.25,
      power_staked_major: 0.3,
      power_staked_alts: 0.2,
      epoch_token: "ORDER",
      max_reward_amount: maxReward * e,
      k_constant_major: 1.5,
      k_constant_alts: 2.5,
    });
  }
  return { current_epoch: current, rows };
}

function epochData(current: number): EpochDataLike {
  const rows = [];
  for (let e = 1; e <= current + 1; e++) {
    rows.push({
      epoch_id: e,
      total_trader_score_major: 100 * e,
      total_trader_score_alts: 10 * e,
      epoch_token: "ORDER",
      reward_status: e < current - 1 ? "Confirmed" : e === current - 1 ? "Pending" : e === current ? "Ongoing" : "0",
      r_major: 7 * e,
      r_alts: 3 * e,
    });
  }
  return { total_released_trading_rewards_native: 12345.5, total_released_trading_rewards_escrow: 678.25, current_epoch: current, rows };
}

const campaignStats: CampaignUserLike = {
  volume: 250_000,
  filled_order_count: 42,
  updated_time: 1_717_300_000_123,
  pnl: -12.5,
  total_deposit_amount: 1000,
  total_withdrawal_amount: 100,
  start_account_value: 900,
  end_account_value: 887.5,
  new_invited_referee: 3,
  new_traded_referee: 1,
  total_staked_native: 50,
  total_staked_esnative: 5,
};

/** A fake RestClient: each operation answers from a replaceable function and counts its calls. */
class FakeSource implements RewardsSource {
  calls = { epochInfo: 0, epochData: 0, campaignUser: 0 };
  campaignQueries: CampaignUserQuery[] = [];
  info: (o: RequestOptions) => Promise<EpochInfoLike> = async () => epochInfo(5);
  data: (o: RequestOptions) => Promise<EpochDataLike> = async () => epochData(5);
  campaign: (o: RequestOptions) => Promise<CampaignUserLike> = async () => campaignStats;
  epochInfo(o: RequestOptions) {
    this.calls.epochInfo++;
    return this.info(o);
  }
  epochData(o: RequestOptions) {
    this.calls.epochData++;
    return this.data(o);
  }
  campaignUser(q: CampaignUserQuery, o: RequestOptions) {
    this.calls.campaignUser++;
    this.campaignQueries.push(q);
    return this.campaign(o);
  }
}

/** Current value of one series, by exact labels. */
async function value(m: Metrics, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = m.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const got = await metric.get();
  const want = Object.entries(labels);
  const hit = got.values.find((v) => {
    const l = v.labels as Record<string, unknown>;
    return Object.keys(l).length === want.length && want.every(([k, x]) => String(l[k]) === x);
  });
  return hit?.value;
}

async function seriesCount(m: Metrics, name: string): Promise<number> {
  return (await m.registry.getSingleMetric(name)!.get()).values.length;
}

const campaign: CampaignUserQuery = { campaign_id: 7, account_id: "0xabc" };

function setup(extra: Partial<ConstructorParameters<typeof RewardsPoller>[0]> = {}) {
  const metrics = createMetrics({ defaultMetrics: false });
  const source = new FakeSource();
  const poller = new RewardsPoller({ source, metrics, intervalMs: 1000, campaign, now: () => 1_800_000_000_000, ...extra });
  return { metrics, source, poller };
}

describe("RewardsPoller", () => {
  it("exposes epoch_info, epoch_data and campaign statistics as gauges", async () => {
    const { metrics: m, source, poller } = setup();
    await poller.pollOnce();
    expect(source.calls).toEqual({ epochInfo: 1, epochData: 1, campaignUser: 1 });
    expect(source.campaignQueries).toEqual([campaign]);

    expect(await value(m, "liquidator_epoch_current")).toBe(5);
    const info = (epoch: string, field: string) => value(m, "liquidator_epoch_info", { epoch, token: "ORDER", field });
    expect(await info("5", "max_reward_amount")).toBe(5000);
    expect(await info("5", "start_time_seconds")).toBe((T0 + 4 * 14 * DAY) / 1000);
    expect(await info("5", "end_time_seconds")).toBe((T0 + 5 * 14 * DAY) / 1000);
    expect(await info("4", "k_constant_alts")).toBe(2.5);
    expect(await info("6", "power_staked_major")).toBe(0.3); // the next epoch is shown
    // Window: current, next and two before; nothing older or further ahead.
    expect(await info("3", "max_reward_amount")).toBe(3000);
    expect(await info("2", "max_reward_amount")).toBeUndefined();
    expect(await info("7", "max_reward_amount")).toBeUndefined();
    expect(await seriesCount(m, "liquidator_epoch_info")).toBe(4 * 9);

    const data = (epoch: string, field: string) => value(m, "liquidator_epoch_data", { epoch, token: "ORDER", field });
    expect(await data("5", "r_major")).toBe(35);
    expect(await data("5", "r_alts")).toBe(15);
    expect(await data("4", "total_trader_score_major")).toBe(400);
    expect(await data("4", "total_trader_score_alts")).toBe(40);
    expect(await data("3", "reward_status")).toBe(3); // Confirmed
    expect(await data("4", "reward_status")).toBe(2); // Pending
    expect(await data("5", "reward_status")).toBe(1); // Ongoing
    expect(await data("6", "reward_status")).toBe(0); // future
    expect(await value(m, "liquidator_rewards_released", { kind: "native" })).toBe(12345.5);
    expect(await value(m, "liquidator_rewards_released", { kind: "escrow" })).toBe(678.25);

    const c = (name: string) => value(m, `liquidator_campaign_${name}`, { campaign_id: "7" });
    expect(await c("volume")).toBe(250_000);
    expect(await c("filled_orders")).toBe(42);
    expect(await c("updated_timestamp_seconds")).toBe(1_717_300_000.123);
    expect(await c("pnl")).toBe(-12.5);
    expect(await c("end_account_value")).toBe(887.5);
    expect(await c("new_invited_referees")).toBe(3);
    expect(await c("staked_esnative")).toBe(5);

    for (const target of ["epoch_info", "epoch_data", "campaign"]) {
      expect(await value(m, "liquidator_poll_last_success_timestamp_seconds", { target })).toBe(1_800_000_000);
      expect(await value(m, "liquidator_poll_errors_total", { target })).toBe(0);
    }
  });

  it("maps reward_status values, unknown ones to -1", () => {
    expect(rewardStatusValueForTests("Confirmed")).toBe(3);
    expect(rewardStatusValueForTests("Pending")).toBe(2);
    expect(rewardStatusValueForTests("Ongoing")).toBe(1);
    expect(rewardStatusValueForTests("0")).toBe(0);
    expect(rewardStatusValueForTests(0)).toBe(0);
    expect(rewardStatusValueForTests("Cancelled")).toBe(-1);
  });

  it("moves the epoch window when the epoch advances", async () => {
    const { metrics: m, source, poller } = setup({ campaign: null });
    await poller.pollOnce();
    source.info = async () => epochInfo(6);
    source.data = async () => epochData(6);
    await poller.pollOnce();
    expect(source.calls.campaignUser).toBe(0);
    expect(await value(m, "liquidator_epoch_current")).toBe(6);
    expect(await value(m, "liquidator_epoch_info", { epoch: "3", token: "ORDER", field: "max_reward_amount" })).toBeUndefined();
    expect(await value(m, "liquidator_epoch_info", { epoch: "7", token: "ORDER", field: "max_reward_amount" })).toBe(7000);
    expect(await value(m, "liquidator_epoch_data", { epoch: "5", token: "ORDER", field: "reward_status" })).toBe(2);
  });

  it("counts a failed poll, keeps the old values, and still polls the other targets", async () => {
    const chunks: string[] = [];
    const logger = createLogger({
      level: "debug",
      destination: new Writable({
        write(c: Buffer, _e, cb) {
          chunks.push(c.toString());
          cb();
        },
      }),
    });
    const { metrics: m, source, poller } = setup({ logger });
    await poller.pollOnce();

    source.info = async () => {
      throw new TransportError("connect ECONNREFUSED", false);
    };
    source.data = async () => epochData(6); // this one moves on
    source.campaign = async () => ({ ...campaignStats, volume: Number.NaN }); // malformed
    await poller.pollOnce();
    await poller.pollOnce();

    expect(await value(m, "liquidator_poll_errors_total", { target: "epoch_info" })).toBe(2);
    expect(await value(m, "liquidator_poll_errors_total", { target: "campaign" })).toBe(2);
    expect(await value(m, "liquidator_poll_errors_total", { target: "epoch_data" })).toBe(0);
    // Old values kept: epoch_info still shows epoch 5's window, the campaign its last good volume.
    expect(await value(m, "liquidator_epoch_info", { epoch: "5", token: "ORDER", field: "max_reward_amount" })).toBe(5000);
    expect(await value(m, "liquidator_campaign_volume", { campaign_id: "7" })).toBe(250_000);
    expect(await value(m, "liquidator_campaign_pnl", { campaign_id: "7" })).toBe(-12.5);
    // epoch_data succeeded on its own.
    expect(await value(m, "liquidator_epoch_data", { epoch: "7", token: "ORDER", field: "reward_status" })).toBe(0);

    // A malformed epoch payload is a failure too, and leaves the gauges as they were.
    source.info = async () => ({ current_epoch: 9, rows: "nope" }) as unknown as EpochInfoLike;
    await poller.pollOnce();
    expect(await value(m, "liquidator_poll_errors_total", { target: "epoch_info" })).toBe(3);
    expect(await value(m, "liquidator_epoch_current")).toBe(6); // from epoch_data, not 9

    // Recovery.
    source.info = async () => epochInfo(6);
    await poller.pollOnce();
    expect(await value(m, "liquidator_epoch_info", { epoch: "7", token: "ORDER", field: "max_reward_amount" })).toBe(7000);

    const lines = chunks
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { level: string; msg: string; target?: string });
    const infoLines = lines.filter((l) => l.target === "epoch_info");
    // Warn once per outage, debug while it lasts, info on recovery.
    expect(infoLines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      "warn rewards poll failed",
      "debug rewards poll failed",
      "debug rewards poll failed",
      "info rewards poll recovered",
    ]);
  });

  it("start() polls at once and on the interval, and stops on abort", async () => {
    let rounds = 0;
    const { source, poller } = setup({ onRound: () => rounds++ });
    const controller = new AbortController();
    const running = poller.start(controller.signal);
    await waitFor(() => rounds >= 2, "two rounds", 20_000, 20);
    controller.abort();
    await running; // resolves, never rejects
    const after = source.calls.epochInfo;
    expect(after).toBe(rounds);
  });

  it("an abort during a request ends the loop without counting an error", async () => {
    const { metrics: m, source, poller } = setup();
    let entered = false;
    source.info = (o) =>
      new Promise((_, reject) => {
        entered = true;
        o.signal?.addEventListener("abort", () => reject(new AbortedError()), { once: true });
      });
    const controller = new AbortController();
    const running = poller.start(controller.signal);
    await waitFor(() => entered, "the first request under way", 10_000, 10);
    controller.abort();
    await running;
    expect(await value(m, "liquidator_poll_errors_total", { target: "epoch_info" })).toBe(0);
    expect(source.calls.epochData).toBe(0); // nothing more was started after the abort
  });

  it("validates its options", () => {
    expect(() => setup({ intervalMs: 999 })).toThrow(ConfigError);
    expect(() => setup({ campaign: { campaign_id: 7 } })).toThrow(ConfigError);
    expect(() => setup({ campaign: { campaign_id: 7, account_id: "0x1", address: "0x2" } })).toThrow(ConfigError);
    expect(() => setup({ epochsKept: 0 })).toThrow(RangeError);
  });
});
