import { register as globalRegister } from "prom-client";
import { describe, expect, it } from "vitest";
import { claimObserver } from "../../src/daemon/claim/claimObserver.js";
import { TRADING_STATES } from "../../src/daemon/control/tradingState.js";
import { MARKOUT_HORIZONS } from "../../src/engine/markouts.js";
import { OPPORTUNITY_OUTCOMES } from "../../src/engine/opportunities.js";
import { PAUSE_REASONS } from "../../src/engine/pauseReasons.js";
import { PROTECTIONS } from "../../src/engine/protections.js";
import { SKIP_REASONS } from "../../src/engine/types.js";
import { AbortedError } from "../../src/errors.js";
import { CLAIM_CONNECTION_KINDS_FOR_TESTS } from "../../src/observe/claimMetrics.js";
import { CLAIM_RESULTS, claimOutcomeLabels, codeLabelForTests } from "../../src/observe/failureLabels.js";
import { LATENCY_BUCKETS_SECONDS_FOR_TESTS } from "../../src/observe/metricMakers.js";
import { createMetrics } from "../../src/observe/metrics.js";
import { CAMPAIGN_GAUGES } from "../../src/observe/rewardsMetrics.js";
import { ORDER_RESULTS } from "../../src/observe/unwindMetrics.js";
import { BadResponseError, TimeoutError, TransportError, VENUE_CODES, VenueError } from "../../src/venue/errors.js";
import { BAD_MESSAGE_REASONS } from "../../src/venue/wire.js";

/** `# TYPE` lines of a scrape: family name → type. */
function types(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(m[1] ?? "", m[2] ?? "");
  return out;
}

/** Value of the sample with exactly this name and label text (`{a="b"}` or ""). */
function sample(text: string, name: string, labels = ""): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}${labels} `)) return Number(line.slice(name.length + labels.length + 1));
  }
  return undefined;
}

const venueError = (code: number): VenueError =>
  new VenueError({ venueCode: code, status: VENUE_CODES.get(code)?.status ?? 400, venueMessage: "x", endpoint: "/v1/liquidation" });

describe("createMetrics", () => {
  it("registers every family of docs/operations.md with its Prometheus type", async () => {
    const t = types(await createMetrics({ defaultMetrics: false }).registry.metrics());
    const required: [string, string][] = [
      ["liquidator_liquidations_seen_total", "counter"],
      ["liquidator_claims_submitted_total", "counter"],
      ["liquidator_claims_result_total", "counter"],
      ["liquidator_claims_skipped_total", "counter"],
      ["liquidator_claim_latency_seconds", "histogram"],
      ["liquidator_decision_latency_seconds", "histogram"],
      ["liquidator_ws_connected", "gauge"],
      ["liquidator_ws_reconnects_total", "counter"],
      ["liquidator_ws_messages_total", "counter"],
      ["liquidator_ws_bad_messages_total", "counter"],
      ["liquidator_mark_price", "gauge"],
      ["liquidator_mark_price_age_seconds", "gauge"],
      ["liquidator_exposure_notional", "gauge"],
      ["liquidator_fee_earned_total", "counter"],
      ["liquidator_http_requests_total", "counter"],
      ["liquidator_http_request_duration_seconds", "histogram"],
      ["liquidator_limiter_queued", "gauge"],
      ["liquidator_epoch_current", "gauge"],
      ["liquidator_epoch_info", "gauge"],
      ["liquidator_epoch_data", "gauge"],
      ["liquidator_build_info", "gauge"],
      ["liquidator_dry_run", "gauge"],
      ["liquidator_venue_simulated", "gauge"],
      ["liquidator_exposure_cap_quote", "gauge"],
      ["liquidator_claiming_paused", "gauge"],
      ["liquidator_journal_errors_total", "counter"],
      ["liquidator_capture_dropped_total", "counter"],
      ["liquidator_claim_rehearsals_total", "counter"],
      ["liquidator_poll_errors_total", "counter"],
      ["liquidator_watchdog_age_seconds", "gauge"],
      ["liquidator_orders_unsettled_total", "counter"],
      ["liquidator_dust_notional_quote", "gauge"],
      ["liquidator_config_reloads_total", "counter"],
      ["liquidator_shadow_claims_total", "counter"],
      ["liquidator_shadow_net_quote", "gauge"],
      ["liquidator_shadow_cpu_seconds_total", "counter"],
      ["liquidator_shadow_events_dropped_total", "counter"],
      ["liquidator_markout_bps", "histogram"],
      ...CAMPAIGN_GAUGES.map((c): [string, string] => [`liquidator_campaign_${c.name}`, "gauge"]),
    ];
    for (const [name, type] of required) expect(t.get(name), name).toBe(type);
    // Naming conventions: one prefix, `_total` exactly on counters.
    for (const [name, type] of t) {
      expect(name.startsWith("liquidator_"), name).toBe(true);
      expect(name.endsWith("_total"), name).toBe(type === "counter");
    }
  });

  it("each help text that lists a label's values names every value of the list the code sets them from", async () => {
    const text = await createMetrics({ defaultMetrics: false }).registry.metrics();
    const help = (name: string): string => text.match(new RegExp(`^# HELP ${name} (.*)$`, "m"))?.[1] ?? "";
    const lists: [string, readonly string[]][] = [
      ["liquidator_claims_result_total", CLAIM_RESULTS],
      ["liquidator_claims_skipped_total", SKIP_REASONS],
      ["liquidator_claiming_paused", PAUSE_REASONS],
      ["liquidator_ws_bad_messages_total", BAD_MESSAGE_REASONS],
      ["liquidator_opportunities_total", OPPORTUNITY_OUTCOMES],
      ["liquidator_markout_bps", MARKOUT_HORIZONS],
      ["liquidator_orders_total", ORDER_RESULTS],
      ["liquidator_claim_connections_total", CLAIM_CONNECTION_KINDS_FOR_TESTS],
      ["liquidator_protection_trips_total", PROTECTIONS],
      ["liquidator_trading_state", TRADING_STATES],
    ];
    for (const [name, values] of lists) {
      const h = help(name);
      expect(h, name).not.toBe("");
      for (const value of values) expect(h, `${name} names ${value}`).toMatch(new RegExp(`\\b${value}\\b`));
    }
  });

  it("shadow_claims_total and shadow_net_quote per variant, read from the shadows at scrape time", async () => {
    const m = createMetrics({ defaultMetrics: false });
    let scores = [
      { variant: "fee20", claims: 3, net: 12.5 },
      { variant: "tight", claims: 1, net: -2 },
    ];
    m.shadow.setSource(() => ({ scores, cpuSeconds: 0.5, events: 40, queued: 2 }));
    let text = await m.registry.metrics();
    expect(sample(text, "liquidator_shadow_claims_total", '{variant="fee20"}')).toBe(3);
    expect(sample(text, "liquidator_shadow_net_quote", '{variant="tight"}')).toBe(-2);
    expect(sample(text, "liquidator_shadow_cpu_seconds_total", "")).toBe(0.5);
    // A variant a reload removed loses its series.
    scores = [{ variant: "fee20", claims: 4, net: 13 }];
    text = await m.registry.metrics();
    expect(sample(text, "liquidator_shadow_claims_total", '{variant="fee20"}')).toBe(4);
    expect(text).not.toContain('variant="tight"');
  });

  it("uses the documented label names", async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.claimsResult.inc({ result: "rejected", code: "-1202" });
    m.claimsSkipped.inc({ reason: "min_fee" });
    m.wsMessages.inc({ stream: "public", topic: "markprices" });
    m.wsBadMessages.inc({ stream: "private", reason: "schema" });
    m.feeEarned.inc({ symbol: "PERP_ETH_USDC" }, 2.5);
    m.httpRequests.inc({ endpoint: "/v1/public/futures", status: "429" });
    m.httpRequestDuration.observe({ endpoint: "/v1/public/futures" }, 0.02);
    const text = await m.registry.metrics();
    expect(sample(text, "liquidator_claims_result_total", '{result="rejected",code="-1202"}')).toBe(1);
    expect(sample(text, "liquidator_claims_skipped_total", '{reason="min_fee"}')).toBe(1);
    expect(sample(text, "liquidator_ws_messages_total", '{stream="public",topic="markprices"}')).toBe(1);
    expect(sample(text, "liquidator_ws_bad_messages_total", '{stream="private",reason="schema"}')).toBe(1);
    expect(sample(text, "liquidator_fee_earned_total", '{symbol="PERP_ETH_USDC"}')).toBe(2.5);
    expect(sample(text, "liquidator_http_requests_total", '{endpoint="/v1/public/futures",status="429"}')).toBe(1);
    expect(sample(text, "liquidator_http_request_duration_seconds_count", '{endpoint="/v1/public/futures"}')).toBe(1);
  });

  it("latency histograms resolve from ~10 µs to 10 s", async () => {
    expect(LATENCY_BUCKETS_SECONDS_FOR_TESTS[0]).toBeLessThanOrEqual(0.00001);
    expect(LATENCY_BUCKETS_SECONDS_FOR_TESTS.at(-1)).toBeGreaterThanOrEqual(10);
    const m = createMetrics({ defaultMetrics: false });
    m.decisionLatency.observe(0.00002); // 20 µs
    m.claimLatency.observe(3);
    const text = await m.registry.metrics();
    expect(sample(text, "liquidator_decision_latency_seconds_bucket", '{le="0.00001"}')).toBe(0);
    expect(sample(text, "liquidator_decision_latency_seconds_bucket", '{le="0.000025"}')).toBe(1);
    expect(sample(text, "liquidator_claim_latency_seconds_bucket", '{le="2.5"}')).toBe(0);
    expect(sample(text, "liquidator_claim_latency_seconds_bucket", '{le="5"}')).toBe(1);
  });

  it("gives each call its own registry and leaves the global one alone", async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.liquidationsSeen.inc(3);
    expect(sample(await a.registry.metrics(), "liquidator_liquidations_seen_total")).toBe(3);
    expect(sample(await b.registry.metrics(), "liquidator_liquidations_seen_total")).toBe(0);
    expect(await globalRegister.metrics()).not.toContain("liquidator_");
  });

  it("exports build_info, default process metrics with the prefix, and zero series alerts compare with", async () => {
    const text = await createMetrics({ version: "1.2.3", commit: "abc1234" }).registry.metrics();
    expect(sample(text, "liquidator_build_info", `{version="1.2.3",commit="abc1234",node="${process.version}"}`)).toBe(1);
    expect(text).toMatch(/^liquidator_process_cpu_seconds_total /m);
    expect(text).toMatch(/^liquidator_nodejs_eventloop_lag_seconds /m);
    expect(sample(text, "liquidator_ws_connected", '{stream="public"}')).toBe(0);
    expect(sample(text, "liquidator_ws_connected", '{stream="private"}')).toBe(0);
    expect(sample(text, "liquidator_dry_run")).toBe(0);
    expect(sample(text, "liquidator_poll_errors_total", '{target="campaign"}')).toBe(0);
    const bare = await createMetrics({ defaultMetrics: false }).registry.metrics();
    expect(bare).not.toContain("liquidator_process_cpu_seconds_total");
  });

  it("the claimer's observer creates every pause reason's series at 0 (the pause alerts compare with it)", async () => {
    const m = createMetrics({ defaultMetrics: false });
    claimObserver(m);
    const text = await m.registry.metrics();
    for (const reason of PAUSE_REASONS) expect(sample(text, "liquidator_claiming_paused", `{reason="${reason}"}`)).toBe(0);
  });

  it("dust_notional_quote: a series from a symbol's first position on, 0 while none of it is dust", async () => {
    const m = createMetrics({ defaultMetrics: false });
    let dust: { symbol: string; notional: number }[] = [];
    m.unwind.setPositionSource(() => [{ symbol: "PERP_ETH_USDC", qty: 0.5 }]);
    m.unwind.setDustSource(() => dust);
    let text = await m.registry.metrics();
    expect(sample(text, "liquidator_dust_notional_quote", '{symbol="PERP_ETH_USDC"}')).toBe(0);
    dust = [{ symbol: "PERP_ETH_USDC", notional: 0.21 }];
    text = await m.registry.metrics();
    expect(sample(text, "liquidator_dust_notional_quote", '{symbol="PERP_ETH_USDC"}')).toBe(0.21);
  });

  it("reads sampled gauges from their sources at scrape time", async () => {
    const m = createMetrics({ defaultMetrics: false });
    let marks = [
      { symbol: "PERP_BTC_USDC", price: 100_000, ageSeconds: 0.25 },
      { symbol: "PERP_ETH_USDC", price: 3000, ageSeconds: 4 },
    ];
    let queued = 2;
    m.setMarkSource(() => marks);
    m.setExposureSource(() => [{ symbol: "PERP_BTC_USDC", value: 1234 }]);
    m.setLimiterSource(() => [{ limiter: "claims", queued }]);
    m.setWatchdogSource(() => [{ loop: "claimer", ageSeconds: 1.5, limitSeconds: 30 }]);
    let text = await m.registry.metrics();
    expect(sample(text, "liquidator_mark_price", '{symbol="PERP_BTC_USDC"}')).toBe(100_000);
    expect(sample(text, "liquidator_mark_price_age_seconds", '{symbol="PERP_ETH_USDC"}')).toBe(4);
    expect(sample(text, "liquidator_exposure_notional", '{symbol="PERP_BTC_USDC"}')).toBe(1234);
    expect(sample(text, "liquidator_limiter_queued", '{limiter="claims"}')).toBe(2);
    expect(sample(text, "liquidator_watchdog_age_seconds", '{loop="claimer"}')).toBe(1.5);
    expect(sample(text, "liquidator_watchdog_limit_seconds", '{loop="claimer"}')).toBe(30);

    marks = [{ symbol: "PERP_BTC_USDC", price: 99_000, ageSeconds: 7 }];
    queued = 0;
    text = await m.registry.metrics();
    expect(sample(text, "liquidator_mark_price", '{symbol="PERP_BTC_USDC"}')).toBe(99_000);
    expect(sample(text, "liquidator_mark_price_age_seconds", '{symbol="PERP_BTC_USDC"}')).toBe(7);
    // A symbol the source no longer reports disappears instead of freezing at its last value.
    expect(sample(text, "liquidator_mark_price_age_seconds", '{symbol="PERP_ETH_USDC"}')).toBeUndefined();
    expect(sample(text, "liquidator_limiter_queued", '{limiter="claims"}')).toBe(0);

    // A throwing source does not fail the scrape; its gauges keep their last values.
    m.setLimiterSource(() => {
      throw new Error("limiter gone");
    });
    text = await m.registry.metrics();
    expect(sample(text, "liquidator_limiter_queued", '{limiter="claims"}')).toBe(0);
    expect(sample(text, "liquidator_mark_price", '{symbol="PERP_BTC_USDC"}')).toBe(99_000);

    // Without a source the gauges are set by hand and keep their values.
    m.setExposureSource(undefined);
    m.exposureNotional.set({ symbol: "PERP_SOL_USDC" }, 5);
    expect(sample(await m.registry.metrics(), "liquidator_exposure_notional", '{symbol="PERP_SOL_USDC"}')).toBe(5);
  });
});

describe("bounded label helpers", () => {
  it("codeLabelForTests keeps registry codes and folds the rest into 'other'", () => {
    for (const code of VENUE_CODES.keys()) expect(codeLabelForTests(code)).toBe(String(code));
    expect(codeLabelForTests(-9999)).toBe("other");
    expect(codeLabelForTests(200)).toBe("other");
    expect(codeLabelForTests(undefined)).toBe("none");
    expect(codeLabelForTests("LIQ_TIMEOUT")).toBe("LIQ_TIMEOUT");
    expect(codeLabelForTests("anything the venue made up")).toBe("other");
  });

  it("claimOutcomeLabels separates rejections, errors and unknown outcomes", () => {
    expect(claimOutcomeLabels(undefined)).toEqual({ result: "success", code: "none" });
    expect(claimOutcomeLabels(venueError(-1202))).toEqual({ result: "rejected", code: "-1202" });
    expect(claimOutcomeLabels(venueError(-1012))).toEqual({ result: "rejected", code: "-1012" });
    expect(claimOutcomeLabels(venueError(-1203))).toEqual({ result: "rejected", code: "-1203" });
    expect(claimOutcomeLabels(venueError(-1101))).toEqual({ result: "rejected", code: "-1101" });
    expect(claimOutcomeLabels(venueError(-1003))).toEqual({ result: "error", code: "-1003" });
    expect(claimOutcomeLabels(venueError(-1002))).toEqual({ result: "error", code: "-1002" });
    expect(claimOutcomeLabels(venueError(-4242))).toEqual({ result: "error", code: "other" });
    expect(claimOutcomeLabels(new TransportError("reset", true))).toEqual({ result: "unknown", code: "LIQ_TRANSPORT" });
    expect(claimOutcomeLabels(new TransportError("refused", false))).toEqual({ result: "error", code: "LIQ_TRANSPORT" });
    expect(claimOutcomeLabels(new TimeoutError("slow"))).toEqual({ result: "unknown", code: "LIQ_TIMEOUT" });
    expect(claimOutcomeLabels(new BadResponseError("/v1/liquidation", "bad"))).toEqual({ result: "error", code: "LIQ_BAD_RESPONSE" });
    expect(claimOutcomeLabels(new AbortedError())).toEqual({ result: "error", code: "LIQ_ABORTED" });
    expect(claimOutcomeLabels(new Error("boom"))).toEqual({ result: "error", code: "other" });
  });
});

describe("the heatmap's families", () => {
  it("forecast_notional_quote: no series before the first poll, then every allowed symbol's three bands per side (0 where nothing is near), rebuilt at each scrape", async () => {
    const m = createMetrics({ defaultMetrics: false });
    const lines = async (name: string) =>
      (await m.registry.metrics()).split("\n").filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
    expect(await lines("liquidator_forecast_notional_quote")).toEqual([]);
    let symbols = ["PERP_BTC_USDC", "PERP_ETH_USDC"];
    const capacity = (s: string, side: string): number | undefined => {
      if (s === "PERP_ETH_USDC" && side === "short") throw new Error("bug");
      return s === "PERP_BTC_USDC" ? (side === "long" ? 500 : 700) : undefined;
    };
    m.setHeatmapSource(() => ({
      symbols,
      cell: (s, side) => (s === "PERP_BTC_USDC" && side === "long" ? [1, 2, 3] : undefined),
      capacity,
    }));
    const first = await lines("liquidator_forecast_notional_quote");
    expect(first).toHaveLength(2 * 2 * 3);
    expect(first).toContain('liquidator_forecast_notional_quote{symbol="PERP_BTC_USDC",side="long",band="2pct"} 2');
    expect(first).toContain('liquidator_forecast_notional_quote{symbol="PERP_ETH_USDC",side="short",band="5pct"} 0');
    // Beside each band, the capacity of that side of that symbol: NaN where unknown or its source throws.
    expect((await lines("liquidator_capacity_by_side_quote")).map((l) => l.toLowerCase())).toEqual([
      'liquidator_capacity_by_side_quote{symbol="perp_btc_usdc",side="long"} 500',
      'liquidator_capacity_by_side_quote{symbol="perp_btc_usdc",side="short"} 700',
      'liquidator_capacity_by_side_quote{symbol="perp_eth_usdc",side="long"} nan',
      'liquidator_capacity_by_side_quote{symbol="perp_eth_usdc",side="short"} nan',
    ]);
    symbols = ["PERP_ETH_USDC"];
    expect(await lines("liquidator_forecast_notional_quote")).toHaveLength(6);
    expect(await lines("liquidator_capacity_by_side_quote")).toHaveLength(2);
    // Capacity: what its source says at the scrape; NaN (no alert compares true) while unknown, or when the source throws.
    expect((await lines("liquidator_capacity_quote")).map((l) => l.toLowerCase())).toEqual(["liquidator_capacity_quote nan"]);
    m.setCapacitySource(() => 1234.5);
    expect(await lines("liquidator_capacity_quote")).toEqual(["liquidator_capacity_quote 1234.5"]);
    m.setCapacitySource(() => {
      throw new Error("bug");
    });
    expect((await lines("liquidator_capacity_quote")).map((l) => l.toLowerCase())).toEqual(["liquidator_capacity_quote nan"]);
  });
});
