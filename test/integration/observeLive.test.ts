/**
 * The dashboard and the alert rules against a live scrape: the daemon runs (in-process, live mode)
 * against the simulated venue, the test drives every kind of event a panel or an alert counts
 * (claims won, rejected and skipped, a stream reconnect, a bad frame, rewards and campaign polls),
 * then checks that every `liquidator_*` name the dashboard JSON and the alert rules query is on a
 * sample line of the real `/metrics` answer — not merely declared by a `# TYPE` line.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { metricValue, parsePrometheus, sampleValueForTests, seriesNamesForTests } from "../../src/observe/promText.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { untilReady, waitFor } from "../support/daemonHarness.js";
import { metricNamesInDashboardAndRules, REPO_ROOT, scrapeNames } from "../support/dashboardNames.js";
import { FAST_TIMING } from "../support/inProcessDaemon.js";
import { test as it, type Rig } from "../support/rig.js";

const CAMPAIGN_ID = 2; // the simulator's running campaign (src/sim/population.ts)
const COMMIT = "0123abc";

/** The venue and the daemon (built-in policy but a denied symbol, rewards and campaign polled every second, the insurance fund on). */
async function start(rig: Rig): Promise<{ sim: SimulatorHandle; url: string }> {
  const sim = await rig.sim({ scenario: { insuranceFund: true } });
  const daemon = await rig.daemon({
    sim,
    stateDir: await rig.dir("observe"),
    policyBase: "built-in",
    policy: { symbols: { deny: ["PERP_TSLA_USDC"] } },
    sections: {
      rewards: { poll_interval_ms: 1000, campaign: { campaign_id: CAMPAIGN_ID, account_id: sim.accountId } },
      // One shadow variant: the shadow panels' series exist per configured variant.
      shadow: { variants: [{ name: "fee5", set: { "policy.min_fee": 5 } }] },
      // The insurance fund read beside its rows: its panel's and alert's series.
      insurance_fund: { enabled: true },
    },
    env: { LIQUIDATOR_BUILD_COMMIT: COMMIT },
    timing: FAST_TIMING,
    until: "ready",
  });
  return { sim, url: daemon.metricsUrl };
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  return res.text();
}

describe("live /metrics scrape of the daemon against the simulated venue", () => {
  it("offers every metric name the dashboard and the alert rules use, each with at least one series", async ({ rig }) => {
    const { sim, url } = await start(rig);
    /** Polls the scrape until `name{labels}` is at least `min`. */
    const waitForSample = async (name: string, labels: Record<string, string>, min = 1): Promise<void> => {
      const what = `${name}${JSON.stringify(labels)} >= ${min}`;
      await waitFor(async () => metricValue(await scrape(url), name, labels) >= min, what);
    };
    const used = metricNamesInDashboardAndRules();
    expect(used.length).toBeGreaterThan(30);

    // Before any event: the families only events create have no series yet. This is what makes the
    // final check meaningful (and shows it can fail): without the driving below it would.
    const before = seriesNamesForTests(await scrape(url));
    const missingBefore = used.filter((n) => !before.has(n));
    expect(missingBefore).toEqual(
      expect.arrayContaining([
        "liquidator_claims_result_total",
        "liquidator_claims_skipped_total",
        "liquidator_exposure_notional",
        "liquidator_fee_earned_total",
        "liquidator_ws_bad_messages_total",
      ]),
    );

    const { core, faults } = sim;
    // A claim won (latency histograms, fee earned, exposure).
    core.addLiquidation({ positions: [{ symbol: "PERP_BTC_USDC", position_qty: 0.1 }] });
    await waitForSample("liquidator_claims_result_total", { result: "success" });
    // A claim the venue rejects: the id is gone (-1202, docs/protocol.md §3), injected once.
    faults.rest.venueError(-1202, { path: "/v1/liquidation", method: "POST", times: 1 });
    core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    await waitForSample("liquidator_claims_result_total", { result: "rejected", code: "-1202" });
    // A liquidation the policy skips (denied symbol).
    core.addLiquidation({ positions: [{ symbol: "PERP_TSLA_USDC", position_qty: 10 }] });
    await waitForSample("liquidator_claims_skipped_total", { reason: "symbol_denied" });
    // Garbage frames on both streams.
    expect(faults.streams.sendMalformed(3)).toBeGreaterThan(0);
    await waitForSample("liquidator_ws_bad_messages_total", { stream: "public" });
    await waitForSample("liquidator_ws_bad_messages_total", { stream: "private" });
    // Both streams dropped: they reconnect.
    expect(faults.streams.dropAll()).toBeGreaterThanOrEqual(2);
    await waitForSample("liquidator_ws_reconnects_total", { stream: "public" });
    await waitForSample("liquidator_ws_reconnects_total", { stream: "private" });
    await untilReady(url, "/readyz 200 after the reconnect");
    // Rewards and campaign polls (poll_interval_ms 1000).
    await waitForSample("liquidator_campaign_volume", { campaign_id: String(CAMPAIGN_ID) }, 0);
    await waitForSample("liquidator_epoch_current", {}, 1);
    // A position the insurance fund holds and no claim row offers (its own series, and the gap's).
    sim.fund.holdUnlisted([{ symbol: "PERP_SOL_USDC", position_qty: 3 }]);
    await waitForSample("liquidator_insurance_fund_unlisted_quote", { symbol: "PERP_SOL_USDC" });
    // The venue's periodic mark push (every second, docs/protocol.md §5).
    await waitForSample("liquidator_ws_messages_total", { stream: "public", topic: "markprices" });

    const text = await scrape(url);
    const series = seriesNamesForTests(text);
    const missing = used.filter((n) => !series.has(n));
    expect(missing).toEqual([]);
    // The weaker check of the unit test holds too, and the parser is not fooled by a made-up name.
    const offered = scrapeNames(text);
    expect(used.filter((n) => !offered.has(n))).toEqual([]);
    expect(offered.has("liquidator_not_a_metric_total")).toBe(false);

    // The labelled series the dashboard's panels split by are really there.
    for (const [name, labels] of [
      ["liquidator_ws_connected", { stream: "public" }],
      ["liquidator_ws_connected", { stream: "private" }],
      ["liquidator_ws_messages_total", { stream: "public", topic: "liquidation" }],
      ["liquidator_ws_messages_total", { stream: "public", topic: "markprices" }],
      ["liquidator_mark_price", { symbol: "PERP_BTC_USDC" }],
      ["liquidator_mark_price_age_seconds", { symbol: "PERP_BTC_USDC" }],
      ["liquidator_exposure_notional", { symbol: "PERP_BTC_USDC" }],
      ["liquidator_fee_earned_total", { symbol: "PERP_BTC_USDC" }],
      ["liquidator_http_requests_total", { endpoint: "/v1/liquidation", status: "200" }],
      ["liquidator_http_request_duration_seconds_count", { endpoint: "/v1/liquidation" }],
      ["liquidator_limiter_queued", { limiter: "claims" }],
      ["liquidator_epoch_info", { field: "max_reward_amount" }],
      ["liquidator_epoch_data", { field: "reward_status" }],
      ["liquidator_rewards_released", { kind: "native" }],
      ["liquidator_campaign_end_account_value", { campaign_id: String(CAMPAIGN_ID) }],
      ["liquidator_watchdog_age_seconds", { loop: "reconcile" }],
    ] as const) {
      expect(sampleValueForTests(text, name, labels), `${name}${JSON.stringify(labels)}`).toBeDefined();
    }
    expect(metricValue(text, "liquidator_ws_connected", { stream: "public" })).toBe(1);
    expect(metricValue(text, "liquidator_ws_connected", { stream: "private" })).toBe(1);
    expect(metricValue(text, "liquidator_claims_submitted_total")).toBeGreaterThanOrEqual(2);
    expect(metricValue(text, "liquidator_liquidations_seen_total")).toBeGreaterThanOrEqual(3);
    expect(metricValue(text, "liquidator_fee_earned_total", { symbol: "PERP_BTC_USDC" })).toBeGreaterThan(0);
  });

  it("labels build_info with version, commit and Node.js version, and exports default process metrics", async ({ rig }) => {
    const { url } = await start(rig);
    const text = await scrape(url);
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
    const buildInfo = parsePrometheus(text).filter((x) => x.name === "liquidator_build_info");
    expect(buildInfo).toEqual([{ name: "liquidator_build_info", labels: { version, commit: COMMIT, node: process.version }, value: 1 }]);

    const series = seriesNamesForTests(text);
    for (const name of [
      "liquidator_process_cpu_seconds_total",
      "liquidator_process_resident_memory_bytes",
      "liquidator_process_start_time_seconds",
      "liquidator_nodejs_heap_size_used_bytes",
      "liquidator_nodejs_eventloop_lag_p99_seconds",
      "liquidator_nodejs_version_info",
    ]) {
      expect(series.has(name), name).toBe(true);
    }
    expect(metricValue(text, "liquidator_process_resident_memory_bytes")).toBeGreaterThan(0);
  });
});
