/**
 * The dashboard reads right on a replica pair: every query of every panel of
 * grafana/dashboards/liquidator.json runs on Debian's Prometheus against two live scrape targets,
 * a leader and a standby of one account, each a real metrics registry (createMetrics) set the way
 * those replicas report: the standby paused with reason "standby", both seeing the account's
 * exposure and P&L, the leader with dry-run and confirmed results besides its claims. Then the
 * panels whose label logic matters are checked value by value: failures without dry_run and
 * confirmed, a healthy standby not painted as paused, exposure and P&L counted once (the leader's),
 * exposure against its cap, and the leader, degraded-mode, halted-symbol and journal-error panels.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { claimObserver } from "../../src/daemon/claim/claimObserver.js";
import { createMetrics, type Metrics } from "../../src/observe/metrics.js";
import { allPanels, type DashboardPanel, loadDashboard } from "../support/dashboardNames.js";
import { PROMETHEUS_BIN, startPrometheus } from "../support/promStack.js";
import { waitFor } from "../support/wait.js";

const installed = spawnSync(PROMETHEUS_BIN, ["--version"], { encoding: "utf8" }).status === 0;
if (!installed) {
  if (process.env.CI !== undefined && process.env.CI !== "") {
    describe("dashboard queries", () => {
      it("has Prometheus (required in CI)", () => {
        expect.fail(`${PROMETHEUS_BIN} not on PATH (apt-get install prometheus)`);
      });
    });
  } else process.stderr.write("NOTE: skipping the dashboard query test: prometheus not on PATH (apt-get install prometheus)\n");
}

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";
const CAP = 10_000;

/** A replica's registry; `tick` moves its counters as a running daemon's would between scrapes. */
function replica(role: "leader" | "standby"): { metrics: Metrics; tick: () => void } {
  const m = createMetrics({ version: "test", commit: "test", defaultMetrics: false });
  claimObserver(m); // as the daemon's claimer does: every claiming_paused reason has a series from the start
  m.exposureCap.set(CAP);
  m.unwind.setPnlSource(() => ({ liquidator_fee: 20, trading: -5, fees: 2.5, net: 12.5, unrealized: -2 }));
  m.unwind.setPositionSource(() => [{ symbol: BTC, qty: 0.05 }]);
  // Each replica runs the shadows on its own feed; the panel shows the leader's.
  const shadowNet = role === "leader" ? 4.5 : 9;
  m.shadow.setSource(() => ({ scores: [{ variant: "fee20", claims: 3, net: shadowNet }], cpuSeconds: 0.01, events: 10, queued: 0 }));
  if (role === "leader") {
    m.leader.set(1);
    m.setExposureSource(() => [
      { symbol: BTC, value: 3_000 },
      { symbol: ETH, value: 1_000 },
    ]);
    m.unwind.halted.set({ symbol: "PERP_DOGE_USDC" }, 1);
    m.unwind.halted.set({ symbol: ETH }, 0);
  } else {
    m.leader.set(0);
    m.claimingPaused.set({ reason: "standby" }, 1);
    m.degraded.set({ stream: "public" }, 1);
    // Its view of the account lags the leader's by the fill just made.
    m.setExposureSource(() => [{ symbol: BTC, value: 3_000 }]);
  }
  const tick = (): void => {
    m.liquidationsSeen.inc(2);
    m.claimsSkipped.inc({ reason: "below_min_fee" }, 1);
    if (role === "leader") {
      m.claimsResult.inc({ result: "success", code: "none" });
      m.claimsResult.inc({ result: "confirmed", code: "none" });
      m.claimsResult.inc({ result: "dry_run", code: "none" }, 5);
      m.claimsResult.inc({ result: "rejected", code: "-1202" });
      m.claimsResult.inc({ result: "error", code: "-1000" });
      m.journalErrors.inc();
    }
  };
  return { metrics: m, tick };
}

async function serve(r: { metrics: Metrics; tick: () => void }): Promise<{ server: Server; host: string }> {
  const server = createServer((_req, res) => {
    r.tick();
    void r.metrics.registry.metrics().then((text) => res.writeHead(200, { "content-type": r.metrics.registry.contentType }).end(text));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe.skipIf(!installed)("dashboard queries on a leader and a standby", () => {
  it("every panel's query runs, and the label logic reads right", { timeout: 60_000 }, async () => {
    const leader = await serve(replica("leader"));
    const standby = await serve(replica("standby"));
    const prom = await startPrometheus({ target: [leader.host, standby.host] });
    try {
      const query = async (expr: string, time?: number): Promise<Sample[]> => {
        const url = `${prom.url}/api/v1/query?query=${encodeURIComponent(expr)}${time !== undefined ? `&time=${time}` : ""}`;
        const body = (await (await fetch(url, { signal: AbortSignal.timeout(5_000) })).json()) as {
          status: string;
          error?: string;
          data?: { resultType: string; result: Sample[] | [number, string] };
        };
        if (body.status !== "success") throw new Error(`${expr}: ${body.error}`);
        // A scalar answer (none expected) as one sample.
        return body.data?.resultType === "scalar"
          ? [{ metric: {}, value: body.data.result as [number, string] }]
          : (body.data?.result as Sample[]);
      };
      // Both targets scraped at least three times: every rate() has points.
      await waitFor(
        async () => (await query("count(count_over_time(liquidator_liquidations_seen_total[1m]) >= 3)"))[0]?.value[1] === "2",
        "three scrapes of both replicas",
        40_000,
        200,
      );
      const at = Date.now() / 1000;
      const panels = allPanels(loadDashboard()).filter((p) => p.type !== "row");
      const results = new Map<string, Sample[][]>();
      for (const p of panels) {
        const answers: Sample[][] = [];
        for (const t of p.targets ?? []) answers.push(await query((t.expr ?? "").replaceAll("$instance", ".*"), at));
        results.set(p.title ?? "", answers);
      }
      const panel = (title: string, ref = 0): Sample[] => {
        const r = results.get(title)?.[ref];
        if (r === undefined) throw new Error(`no panel "${title}" (target ${ref})`);
        return r;
      };
      const value = (s: Sample[] | undefined, match: Record<string, string> = {}): number => {
        const found = (s ?? []).filter((x) => Object.entries(match).every(([k, v]) => x.metric[k] === v));
        if (found.length !== 1) throw new Error(`expected one sample matching ${JSON.stringify(match)}, got ${JSON.stringify(s)}`);
        return Number(found[0]?.value[1]);
      };

      // Failures: error and rejected, never dry_run (nothing sent) or confirmed (a success).
      expect(new Set(panel("Claim failures by code").map((s) => s.metric.result))).toEqual(new Set(["error", "rejected"]));
      // A healthy standby and a leader with no pause: nothing reads as paused.
      const paused = panel("Claiming paused");
      expect(paused.length).toBeGreaterThan(0);
      for (const s of paused) expect(Number(s.value[1]), s.metric.reason).toBe(0);
      expect(paused.map((s) => s.metric.reason)).not.toContain("standby");
      // Exposure and P&L once, as the leader reports them (not the sum of both replicas).
      expect(value(panel("Exposure per symbol"), { symbol: BTC })).toBe(3_000);
      expect(value(panel("Exposure per symbol"), { symbol: ETH })).toBe(1_000);
      expect(value(panel("Exposure vs cap"))).toBeCloseTo(4_000 / CAP, 9);
      expect(value(panel("Net P&L", 0))).toBe(12.5);
      expect(value(panel("Net P&L", 1))).toBe(-2);
      expect(value(panel("Realized P&L"), { component: "net" })).toBe(12.5);
      expect(value(panel("Unrealized P&L"))).toBe(-2);
      expect(value(panel("Position per symbol"), { symbol: BTC })).toBe(0.05);
      // Shadow variants beside the live account, the leader's.
      expect(value(panel("Shadow variants: net vs live", 0), { variant: "fee20" })).toBe(4.5);
      expect(value(panel("Shadow variants: net vs live", 1))).toBe(10.5);
      // Liquidations seen: the leader's count only (both replicas hear each one).
      const seenLeader = value(await query(`sum(rate(liquidator_liquidations_seen_total{instance="${leader.host}"}[5m]))`, at));
      expect(seenLeader).toBeGreaterThan(0);
      expect(value(panel("Liquidations seen vs claimed", 0))).toBeCloseTo(seenLeader, 9);
      const skippedLeader = value(await query(`sum(rate(liquidator_claims_skipped_total{instance="${leader.host}"}[5m]))`, at));
      expect(value(panel("Skipped by reason"), { reason: "below_min_fee" })).toBeCloseTo(skippedLeader, 9);
      // Who leads, which stream is on REST where, halted symbols, journal errors.
      expect(value(panel("Leader"), { instance: leader.host })).toBe(1);
      expect(value(panel("Leader"), { instance: standby.host })).toBe(0);
      expect(value(panel("Degraded mode"), { instance: standby.host, stream: "public" })).toBe(1);
      expect(value(panel("Degraded mode"), { instance: leader.host, stream: "public" })).toBe(0);
      expect(value(panel("Halted symbols"))).toBe(1);
      expect(value(panel("Journal errors (1h)"))).toBeGreaterThanOrEqual(1);
      // Every query was run (and answered without error), every panel has its answers.
      const expected = panels.reduce((n: number, p: DashboardPanel) => n + (p.targets?.length ?? 0), 0);
      expect([...results.values()].reduce((n, a) => n + a.length, 0)).toBe(expected);
    } finally {
      await prom.stop();
      leader.server.close();
      standby.server.close();
    }
  });
});
