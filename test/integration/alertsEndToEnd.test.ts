/**
 * End to end with real parts: the simulated venue, the daemon as a child process (the CLI as built),
 * Debian's Prometheus scraping it every second with the shipped rules, Debian's Alertmanager with
 * the shipped config, and a webhook receiver. Fault: the public stream refused and dropped → the
 * LiquidatorStreamDown notification arrives with the labels and annotations the runbook expects;
 * fault cleared → the resolved notification arrives. The same for a claimed position that cannot
 * be closed (its book emptied) → LiquidatorPositionNotFlat, then resolved once the book is back.
 *
 * Test-only timing, derived from the real files and nothing else changed: every rule's `for:` is
 * 3 s (1 min in grafana/alerts.yml), Alertmanager's group_wait and group_interval 1 s (30 s, 5 m).
 */
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { describe, expect } from "vitest";
import { parse, stringify } from "yaml";
import { withAbsoluteRunbookUrls } from "../../src/ops/runbookUrls.js";
import { renderForTest } from "../support/alertmanagerConfig.js";
import type { Build } from "../support/buildOnce.js";
import { daemonEnv, untilReady } from "../support/daemonHarness.js";
import { ALERTS_PATH } from "../support/dashboardNames.js";
import {
  ALERTMANAGER_BIN,
  type Delivery,
  PROMETHEUS_BIN,
  startAlertmanager,
  startPrometheus,
  startWebhookReceiver,
  type WebhookAlert,
} from "../support/promStack.js";
import { test as it, type Rig } from "../support/rig.js";
import { waitFor } from "../support/wait.js";

const installed = (bin: string): boolean => spawnSync(bin, ["--version"], { encoding: "utf8" }).status === 0;
const missing = [PROMETHEUS_BIN, ALERTMANAGER_BIN].filter((b) => !installed(b));
if (missing.length > 0) {
  const why = `${missing.join(" and ")} not on PATH (apt-get install prometheus prometheus-alertmanager)`;
  if (process.env.CI !== undefined && process.env.CI !== "") {
    describe("alerts end to end", () => {
      it("has Prometheus and Alertmanager (required in CI)", () => {
        expect.fail(why);
      });
    });
  } else process.stderr.write(`NOTE: skipping the end-to-end alert test: ${why}\n`);
}

/** Where the test's rules say the runbook is (the deployments' RUNBOOK_BASE_URL). */
const RUNBOOK_BASE = "https://runbook.test/liquidator";

/** The shipped rules with every `for:` cut to 3 s, and "open for 5 minutes" cut to 2 s; runbook links made absolute as deployed. */
async function fastRules(): Promise<string> {
  const doc = parse(await readFile(ALERTS_PATH, "utf8")) as { groups: { rules: Record<string, unknown>[] }[] };
  let changed = 0;
  for (const g of doc.groups) g.rules = withAbsoluteRunbookUrls(g.rules, RUNBOOK_BASE);
  for (const g of doc.groups)
    for (const r of g.rules) {
      if (r.for !== undefined) {
        r.for = "3s";
        changed++;
      }
      if (r.alert === "LiquidatorPositionNotFlat") {
        const expr = String(r.expr);
        r.expr = expr.replace(/\) > 300$/, ") > 2");
        expect(r.expr).not.toBe(expr);
      }
    }
  expect(changed).toBeGreaterThan(5);
  return stringify(doc);
}

/** The simulator, the daemon, Prometheus with the fast rules, Alertmanager and a webhook, torn down after the test. */
async function stack({ rig, build }: { rig: Rig; build: Build }) {
  const sim = await rig.sim();
  const stateDir = await rig.dir("alerts-e2e");
  const daemon = rig.spawn(build.cli, [], daemonEnv(sim, stateDir), stateDir);
  const metricsUrl = await daemon.metricsUrl();
  await untilReady(metricsUrl, "the daemon ready", 30_000);
  const hook = await startWebhookReceiver();
  rig.defer(() => hook.stop());
  const amDir = await rig.dir("alerts-e2e-am");
  const am = await startAlertmanager(await renderForTest(amDir, hook.url, fastRoute));
  rig.defer(() => am.stop());
  const target = new URL(metricsUrl).host;
  const prom = await startPrometheus({ target, rulesYaml: await fastRules(), alertmanager: new URL(am.url).host });
  rig.defer(() => prom.stop());
  return { sim, hook, prom, target };
}

/** The shipped Alertmanager config with the route's waits cut to 1 s. */
function fastRoute(text: string): string {
  const out = text.replace(/^ {2}group_wait: .+$/m, "  group_wait: 1s").replace(/^ {2}group_interval: .+$/m, "  group_interval: 1s");
  if (!out.includes("group_wait: 1s") || !out.includes("group_interval: 1s"))
    throw new Error("route timings not found in alertmanager.yml");
  return out;
}

const notified = (deliveries: Delivery[], status: WebhookAlert["status"], match: Record<string, string>): WebhookAlert | undefined =>
  deliveries.flatMap((d) => d.body.alerts).find((a) => a.status === status && Object.entries(match).every(([k, v]) => a.labels[k] === v));

async function promQuery(prom: string, query: string): Promise<number | undefined> {
  const res = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(query)}`, { signal: AbortSignal.timeout(3_000) });
  const body = (await res.json()) as { data?: { result?: { value: [number, string] }[] } };
  const v = body.data?.result?.[0]?.value[1];
  return v === undefined ? undefined : Number(v);
}

describe.skipIf(missing.length > 0)("alerts end to end", () => {
  it("public stream refused → LiquidatorStreamDown reaches the webhook with its runbook; cleared → resolved", {
    timeout: 90_000,
  }, async ({ rig, build }) => {
    const { sim, hook, prom, target } = await stack({ rig, build });

    // Prometheus scrapes the daemon and sees both streams up; nothing has been notified for them.
    await waitFor(
      async () => (await promQuery(prom.url, 'liquidator_ws_connected{stream="public"}')) === 1,
      "Prometheus to scrape the public stream as up",
    );
    expect(await promQuery(prom.url, 'up{job="liquidator"}')).toBe(1);
    expect(notified(hook.deliveries, "firing", { alertname: "LiquidatorStreamDown" })).toBeUndefined();

    sim.faults.streams.refuseConnections(true, "public");
    sim.faults.streams.dropAll("public");
    const firing = await waitFor(
      () => notified(hook.deliveries, "firing", { alertname: "LiquidatorStreamDown", stream: "public" }),
      "the firing notification at the webhook",
      40_000,
      100,
    );
    // REST still answers: degraded mode claims on, so it is the warning, not the page.
    expect(firing.labels).toMatchObject({ severity: "warning", job: "liquidator", instance: target });
    expect(firing.annotations.runbook_url).toBe(`${RUNBOOK_BASE}/docs/runbook.md#liquidatorstreamdown`);
    expect(firing.annotations.summary).toBe(`Liquidator ${target}: public stream down, claiming from REST`);
    expect(firing.annotations.description).toContain("public stream has not been authenticated/subscribed");
    expect(notified(hook.deliveries, "firing", { alertname: "LiquidatorStreamDown", severity: "critical" })).toBeUndefined();
    // The webhook's credential came from its secret file, as configured.
    const delivery = hook.deliveries.find((d) => d.body.alerts.includes(firing));
    expect(delivery?.headers.authorization).toBe("Bearer test-webhook_token");
    expect(delivery?.body.receiver).toBe("webhook");
    // The private stream stayed up: no alert for it.
    expect(notified(hook.deliveries, "firing", { alertname: "LiquidatorStreamDown", stream: "private" })).toBeUndefined();

    sim.faults.streams.refuseConnections(false, "public");
    const resolved = await waitFor(
      () => notified(hook.deliveries, "resolved", { alertname: "LiquidatorStreamDown", stream: "public" }),
      "the resolved notification at the webhook",
      40_000,
      100,
    );
    expect(resolved.annotations.runbook_url).toBe(firing.annotations.runbook_url);
    expect(await promQuery(prom.url, 'liquidator_ws_connected{stream="public"}')).toBe(1);
  });

  it("a position that does not get flat → LiquidatorPositionNotFlat reaches the webhook; closed → resolved", {
    timeout: 90_000,
  }, async ({ rig, build }) => {
    const { sim, hook, target } = await stack({ rig, build });
    const ETH = "PERP_ETH_USDC";
    // No liquidity to close into: the unwinder's IOC orders find nothing and the position stays.
    sim.core.trading.book(ETH)?.empty(sim.core.now(), 10 * 60_000);
    sim.core.addLiquidation({ positions: [{ symbol: ETH, position_qty: 0.5 }] });
    const firing = await waitFor(
      () => notified(hook.deliveries, "firing", { alertname: "LiquidatorPositionNotFlat", symbol: ETH }),
      "the firing notification at the webhook",
      60_000,
      100,
    );
    expect(firing.labels).toMatchObject({ severity: "warning", job: "liquidator", instance: target });
    expect(firing.annotations.runbook_url).toBe(`${RUNBOOK_BASE}/docs/runbook.md#liquidatorpositionnotflat`);
    expect(firing.annotations.summary).toBe(`Liquidator ${target}: ${ETH} position not flat after 5 minutes`);

    sim.core.trading.book(ETH)?.refill();
    await waitFor(
      () => notified(hook.deliveries, "resolved", { alertname: "LiquidatorPositionNotFlat", symbol: ETH }),
      "the resolved notification at the webhook",
      60_000,
      100,
    );
    expect(sim.core.trading.booksOf(sim.accountId).get(ETH)?.qty).toBe(0);
  });
});
