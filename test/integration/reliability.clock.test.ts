/**
 * Reliability, server time (the item 5, last part). The venue rejects a signed request or a
 * private-stream auth whose timestamp is more than 300 s from its clock (docs/protocol.md §2):
 *
 * - A venue clock 10 minutes ahead of the host: the offset learned from response envelopes corrects
 *   every signature, so claims are accepted and the private stream authenticates.
 * - Answers slower than the best round trip still count as fresh server time (serverClock.ts).
 * - No server time for longer than clockMaxAgeMs (every REST request cut, so no envelope arrives):
 *   the correction cannot be vouched for, claiming pauses (`claiming_paused:clock` on /readyz) and
 *   no claim is sent; REST back → a fresh sample → claiming resumes, the waiting claim goes once.
 */
import { expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, ethLong, metric, readyz, reconcileRounds, untilReady, waitFor } from "../support/daemonHarness.js";
import { requestsPerId, venueClaimRequests } from "../support/reliability.js";
import { test } from "../support/rig.js";

const claimed = (s: SimulatorHandle, id: number): boolean => claimsBy(s).some((c) => c.liquidationId === id);

test("a venue clock 10 minutes ahead: signatures corrected from envelopes, claims accepted, private stream up", async ({ rig }) => {
  const AHEAD_MS = 600_000;
  const sim = await rig.sim({ now: () => Date.now() + AHEAD_MS });
  const dir = await rig.dir("rel-clock-ahead");
  // Ready: the private stream authenticated.
  const daemon = await rig.daemon({ sim, stateDir: dir, timing: { reconcileIntervalMs: 500 }, until: "ready" });
  const authRefusedAtReady = sim.streams.stats().authFailures;

  const ids = [
    sim.core.addLiquidation(ethLong(0.2)),
    sim.core.addLiquidation(ethLong(0.3)),
    sim.core.addLiquidation({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: -4 }] }),
  ];
  await waitFor(() => ids.every((id) => claimed(sim, id)), "every liquidation claimed");
  // Every claim the venue saw passed its 300 s check (a stale timestamp is -1002 in its log).
  const requests = venueClaimRequests(sim);
  expect(requests.map((r) => r.code)).toEqual(ids.map(() => 0));
  expect([...requestsPerId(requests).keys()].sort()).toEqual([...ids].sort());
  // Once the offset was known, no auth was refused (a reconnect now authenticates at once).
  expect(sim.faults.streams.dropAll("private")).toBe(1);
  await waitFor(
    async () => sim.streams.stats().authSuccesses >= 2 && (await readyz(daemon.metricsUrl)).status === 200,
    "private stream re-authenticated",
  );
  expect(sim.streams.stats().authFailures).toBe(authRefusedAtReady);
}, 60_000);

test("no server time for longer than clockMaxAgeMs: claiming paused and says why, nothing sent; REST back → resumes", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("rel-clock-stale");
  const CLOCK_MAX_AGE_MS = 2_000;
  const daemon = await rig.daemon({
    sim,
    configDir: dir,
    stateDir: `${dir}/state`,
    timing: { clockMaxAgeMs: CLOCK_MAX_AGE_MS, reconcileIntervalMs: 500 },
    until: "listening",
  });
  await untilReady(daemon.metricsUrl, "ready");
  // Healthy REST keeps the clock fresh: the pause never shows while envelopes arrive — also when
  // every answer is a little slower than the best round trip seen (the offset keeps the tightest
  // sample; freshness counts every one).
  const warm = sim.core.addLiquidation(ethLong(0.2));
  await waitFor(() => claimed(sim, warm), "warm-up claim");
  const slower = sim.faults.rest.delay(30, { method: "GET" });
  // Watched for longer than the clock's max age, and until reconcile rounds have read the venue (each
  // answer an envelope) several times in it: the pause would have shown by then.
  const readsBefore = await metric(daemon.metricsUrl, "liquidator_http_requests_total", { endpoint: "/v1/public/liquidation" });
  const watchedFrom = Date.now();
  const seenPaused: string[][] = [];
  await waitFor(async () => {
    const { reasons } = await readyz(daemon.metricsUrl);
    if (reasons.includes("claiming_paused:clock")) seenPaused.push(reasons);
    const reads = await metric(daemon.metricsUrl, "liquidator_http_requests_total", { endpoint: "/v1/public/liquidation" });
    return Date.now() - watchedFrom > CLOCK_MAX_AGE_MS + 1_500 && reads >= readsBefore + 5;
  }, "a window longer than the clock's max age, with reconcile reads in it");
  expect(seenPaused).toEqual([]);
  slower();

  // REST unreachable: every request's connection is cut before an answer (streams stay up).
  const disarm = sim.faults.rest.reset({ phase: "before" });
  await waitFor(
    async () => (await readyz(daemon.metricsUrl)).reasons.includes("claiming_paused:clock"),
    "claiming_paused:clock on /readyz",
    15_000,
  );
  expect((await readyz(daemon.metricsUrl)).status).toBe(503);
  // Pushed on the stream, seen, decided and held: the daemon has it, and reconcile rounds (their
  // reads cut too) have come and gone since, with no claim sent.
  const seen = await metric(daemon.metricsUrl, "liquidator_liquidations_seen_total");
  const waiting = sim.core.addLiquidation(ethLong(0.3));
  await waitFor(async () => (await metric(daemon.metricsUrl, "liquidator_liquidations_seen_total")) > seen, "the daemon sees it");
  await reconcileRounds(daemon.metricsUrl, 2);
  expect(venueClaimRequests(sim).some((r) => r.liquidationId === waiting)).toBe(false);

  disarm();
  await waitFor(() => claimed(sim, waiting), "the held claim sent once server time is known again", 15_000);
  await untilReady(daemon.metricsUrl, "ready again");
  expect(daemon.logs.has("server time known again; claiming resumes")).toBe(true);
  expect(
    requestsPerId(venueClaimRequests(sim))
      .get(waiting)
      ?.map((r) => r.code),
  ).toEqual([0]);
}, 60_000);
