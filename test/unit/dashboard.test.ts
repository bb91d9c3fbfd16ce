import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createMetrics, type Metrics } from "../../src/observe/metrics.js";
import {
  ALERTS_PATH,
  allPanels,
  dashboardExpressions,
  loadAlertRules,
  loadDashboard,
  metricNamesIn,
  metricNamesInDashboardAndRules,
  REPO_ROOT,
  scrapeNames,
} from "../support/dashboardNames.js";

/** Puts one sample into every labelled family so the scrape shows each series name. */
function touchEverything(m: Metrics): void {
  m.claimsResult.inc({ result: "success", code: "none" });
  m.claimsSkipped.inc({ reason: "min_fee" });
  m.protectionTrips.inc({ protection: "daily_loss" });
  m.tradingState.set({ state: "halted" }, 1);
  m.claimLatency.observe(0.002);
  m.decisionLatency.observe(0.00003);
  m.wsMessages.inc({ stream: "public", topic: "liquidation" });
  m.wsBadMessages.inc({ stream: "public", reason: "json" });
  m.feeEarned.inc({ symbol: "PERP_BTC_USDC" }, 1.5);
  m.httpRequests.inc({ endpoint: "/v1/liquidation", status: "200" });
  m.httpRequestDuration.observe({ endpoint: "/v1/liquidation" }, 0.05);
  m.epochInfo.set({ epoch: "3", token: "ORDER", field: "max_reward_amount" }, 1000);
  m.epochData.set({ epoch: "3", token: "ORDER", field: "r_major" }, 10);
  m.rewardsReleased.set({ kind: "native" }, 5);
  for (const g of Object.values(m.campaign)) g.set({ campaign_id: "7" }, 1);
  m.pollLastSuccess.set({ target: "epoch_info" }, 1);
  m.setMarkSource(() => [{ symbol: "PERP_BTC_USDC", price: 100, ageSeconds: 0.1 }]);
  m.setExposureSource(() => [{ symbol: "PERP_BTC_USDC", value: 10 }]);
  m.setLimiterSource(() => [{ limiter: "claims", queued: 0 }]);
  m.setWatchdogSource(() => [{ loop: "claimer", ageSeconds: 0.1, limitSeconds: 30 }]);
  m.shadow.setSource(() => ({ scores: [{ variant: "fee20", claims: 1, net: 2 }], cpuSeconds: 0.01, events: 10, queued: 0 }));
  m.setHeatmapSource(() => ({ symbols: ["PERP_BTC_USDC"], cell: () => [1, 2, 3], capacity: () => 4 }));
  m.setFundSource(() => ({ at: 0, balance: 1, symbols: new Map([["PERP_BTC_USDC", { qty: 1, unlistedQty: 0.5, price: 100 }]]) }));
  m.fundPolls.inc({ result: "ok" });
  m.setCapacitySource(() => 5);
}

describe("dashboard and alert rules vs. the metrics registry", () => {
  it("the tokenizer finds names in expressions and ignores label values and legends", () => {
    expect(metricNamesIn('sum by (le) (rate(liquidator_claim_latency_seconds_bucket{instance=~"$instance"}[1m]))')).toEqual([
      "liquidator_claim_latency_seconds_bucket",
    ]);
    expect(metricNamesIn('x{code="liquidator_not_a_name"} and liquidator_dry_run == 0')).toEqual(["liquidator_dry_run"]);
    expect(metricNamesIn("$liquidator_var + 1e3")).toEqual([]);
  });

  it("every metric name the dashboard and the alerts use exists in a scrape of createMetrics()", async () => {
    const used = metricNamesInDashboardAndRules();
    // The files really were read: the central families are among the names found.
    for (const core of [
      "liquidator_ws_connected",
      "liquidator_claims_result_total",
      "liquidator_claim_latency_seconds_bucket",
      "liquidator_mark_price_age_seconds",
      "liquidator_claiming_paused",
      "liquidator_dry_run",
    ]) {
      expect(used).toContain(core);
    }
    const metrics = createMetrics({ version: "test", commit: "test" });
    touchEverything(metrics);
    const offered = scrapeNames(await metrics.registry.metrics());
    expect(offered.has("liquidator_not_a_metric_total")).toBe(false);
    const missing = used.filter((n) => !offered.has(n));
    expect(missing).toEqual([]);
  });

  it("the dashboard has unique panel ids, a datasource variable and only `${datasource}` references", () => {
    const d = loadDashboard();
    expect(d.uid).toBe("liquidator");
    expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
    const panels = allPanels(d);
    expect(panels.length).toBeGreaterThan(20);
    const ids = panels.map((p) => p.id);
    for (const id of ids) expect(Number.isInteger(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);

    const dsVar = d.templating?.list.find((v) => v.name === "datasource");
    expect(dsVar).toMatchObject({ type: "datasource", query: "prometheus" });

    const expected = { type: "prometheus", uid: "${datasource}" };
    let queryPanels = 0;
    for (const p of panels) {
      if (p.type === "row") {
        expect(p.targets ?? []).toEqual([]);
        continue;
      }
      queryPanels += 1;
      expect(p.datasource, `panel ${p.title}`).toEqual(expected);
      expect(p.targets?.length, `panel ${p.title}`).toBeGreaterThan(0);
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(new Set(refIds).size, `panel ${p.title}`).toBe(refIds.length);
      for (const t of p.targets ?? []) {
        expect(t.datasource, `panel ${p.title}`).toEqual(expected);
        expect(t.expr ?? "", `panel ${p.title}`).not.toBe("");
      }
      const g = p.gridPos;
      expect(g !== undefined && g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.h > 0, `panel ${p.title} gridPos`).toBe(true);
    }
    expect(queryPanels).toBeGreaterThan(15);
    for (const v of d.templating?.list ?? []) {
      if (v.type === "query") expect(v.datasource).toEqual(expected);
    }
    // No other datasource reference anywhere in the model (e.g. a uid copied from one Grafana).
    const refs: unknown[] = [];
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(walk);
      else if (x !== null && typeof x === "object") {
        for (const [k, v] of Object.entries(x)) {
          if (k === "datasource") refs.push(v);
          walk(v);
        }
      }
    };
    walk(d);
    for (const r of refs) expect(r).toEqual(expected);
    expect(dashboardExpressions(d).length).toBeGreaterThan(queryPanels);
  });

  it("alert rules cover the required conditions", () => {
    const rules = loadAlertRules();
    const byName = new Map(rules.map((r) => [r.alert, r]));
    expect(byName.get("LiquidatorStreamDown")?.expr).toContain("liquidator_ws_connected == 0");
    expect(byName.get("LiquidatorMarksStale")?.expr).toContain("liquidator_mark_price_age_seconds");
    expect(byName.get("LiquidatorClaimErrorRate")?.expr).toContain("liquidator_claims_result_total");
    expect(byName.get("LiquidatorRateLimited")?.expr).toMatch(/status="429"/);
    expect(byName.get("LiquidatorSeenNothingClaimed")?.expr).toContain("liquidator_dry_run");
    expect(byName.get("LiquidatorMarginPause")?.expr).toContain('liquidator_claiming_paused{reason="margin"}');
    for (const r of rules) expect(r.labels?.severity, r.alert).toMatch(/^(critical|warning|info)$/);
  });

  it("docker-compose mounts and Dockerfile sources exist", () => {
    // Compose reads YAML merge keys (`<<: *replica`).
    const compose = parseYaml(readFileSync(join(REPO_ROOT, "docker-compose.yml"), "utf8"), { merge: true }) as {
      services: Record<string, { volumes?: string[]; profiles?: string[]; command?: string[]; environment?: Record<string, string> }>;
    };
    const byProfile = (p: string | undefined) =>
      Object.entries(compose.services)
        .filter(([, v]) => v.profiles?.[0] === p)
        .map(([k]) => k)
        .sort();
    expect(byProfile(undefined)).toEqual(["grafana", "liquidator", "prometheus"]);
    expect(byProfile("ha")).toEqual(["ha-postgres", "ha-venue", "replica-a", "replica-b"]);
    expect(byProfile("alerting")).toEqual(["alertmanager"]);
    // Each replica signs with its own key, one the shared venue authorizes, and keeps state in PostgreSQL.
    const s = compose.services;
    const authorized = (s["ha-venue"]?.command ?? [])
      .filter((a) => a.startsWith("--key-file="))
      .map((a) => a.replace("--key-file=/data/", ""));
    const used = ["replica-a", "replica-b"].map((r) => s[r]?.environment?.LIQUIDATOR_SECRET_FILE?.replace("/keys/", ""));
    expect(used).toEqual(authorized);
    expect(new Set(used).size).toBe(2);
    for (const r of ["replica-a", "replica-b"]) expect(s[r]?.environment?.LIQUIDATOR_STATE_BACKEND).toBe("postgres");
    // ./secrets/ holds the operator's credential files (git-ignored), not the repository's.
    const binds = Object.values(compose.services).flatMap((s) =>
      (s.volumes ?? []).filter((v) => v.startsWith("./") && !v.startsWith("./secrets/")),
    );
    expect(binds.length).toBeGreaterThanOrEqual(4);
    for (const b of binds) expect(existsSync(join(REPO_ROOT, b.split(":")[0] ?? "")), b).toBe(true);

    const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
    const copies = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => (m[1] ?? "").split(/\s+/));
    expect(copies).toContain("src");
    for (const c of copies) expect(existsSync(join(REPO_ROOT, c)), c).toBe(true);
  });
});

/** promtool comes with Debian's `prometheus` package; CI must have it, a dev machine may skip. */
const promtool = spawnSync("promtool", ["--version"], { encoding: "utf8" }).status === 0;
if (!promtool) {
  if (process.env.CI !== undefined && process.env.CI !== "") {
    describe("promtool", () => {
      it("is installed (required in CI: apt-get install prometheus)", () => {
        expect.fail("promtool not found on PATH");
      });
    });
  } else {
    process.stderr.write("NOTE: promtool not on PATH; skipping `promtool check` of grafana/*.yml (apt-get install prometheus)\n");
  }
}

describe.skipIf(!promtool)("promtool", () => {
  const run = (...args: string[]): string =>
    execFileSync("promtool", args, { cwd: join(REPO_ROOT, "grafana"), encoding: "utf8", stdio: "pipe" });

  it("accepts the alert rules", () => {
    expect(run("check", "rules", ALERTS_PATH)).toMatch(/SUCCESS/);
  });
  it("accepts prometheus.yml with its rule file", () => {
    expect(run("check", "config", "prometheus.yml")).toMatch(/SUCCESS: 1 rule files found/);
  });
  it("passes the alert unit tests (grafana/alerts.test.yml)", () => {
    expect(run("test", "rules", "alerts.test.yml")).toMatch(/SUCCESS/);
  });
});
