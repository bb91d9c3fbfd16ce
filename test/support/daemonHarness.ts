/**
 * Shared pieces of the daemon's integration tests: a quiet simulated venue on port 0, the daemon's
 * environment pointing at it (live mode over loopback), and readers for the venue's truth (claim
 * log), the daemon's journal and `/metrics` (read with the app's one Prometheus text parser).
 * Not a test file itself.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pino from "pino";
import { stringify } from "yaml";
import { metricValue } from "../../src/observe/promText.js";
import type { ClaimLogEntry } from "../../src/sim/claimLog.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, type StartSimulatorOptions, startSimulator } from "../../src/sim/startSimulator.js";
import { JOURNAL_FILE } from "../../src/store/fileJournal.js";
import { listSegments } from "../../src/store/journalFiles.js";
import { type JournalReplay, parseJournal } from "../../src/store/journalReplay.js";
import { defaultConfig } from "./defaultConfig.js";

/** A policy that lets every test liquidation through unless a test says otherwise. */
export const OPEN_POLICY = {
  max_claim_notional: 1_000_000,
  max_total_exposure: 100_000_000,
  min_fee: 0,
  limit_price_slippage_bps: 50,
  max_mark_age_ms: 5_000,
};

/** The simulated venue with no random market: marks pushed every second but still, nothing else. */
export async function startQuietSim(options: Omit<StartSimulatorOptions, "logger" | "port"> = {}): Promise<SimulatorHandle> {
  return startSimulator({
    port: 0,
    seed: 7,
    collateral: 100_000_000,
    liquidationTtlMs: 300_000,
    ...options,
    scenario: { ...QUIET_SCENARIO, ...options.scenario },
    logger: pino({ level: "silent" }),
  });
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `liq-${prefix}-`));
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

/**
 * Writes `config.yaml` with the given policy (none: the built-in one) and any other sections into
 * `dir`; returns its path.
 */
export async function writePolicyFile(
  dir: string,
  policy: Record<string, unknown> | undefined,
  name = "config.yaml",
  sections: Record<string, unknown> = {},
): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, stringify(policy === undefined ? sections : { ...sections, policy }));
  return path;
}

let builtInLimitsFile: string | undefined;

/**
 * A config file that sets the limits live mode wants explicit (config/liveLimits.ts) to their built-in
 * values: what a test that gives no config of its own means by "the built-in policy". One per test process.
 */
function builtInLimitsConfig(): string {
  if (builtInLimitsFile === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "liq-limits-"));
    const { max_claim_notional, max_total_exposure, min_fee } = defaultConfig().policy;
    const path = join(dir, "limits.yaml");
    writeFileSync(path, stringify({ policy: { max_claim_notional, max_total_exposure, min_fee } }));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    builtInLimitsFile = path;
  }
  return builtInLimitsFile;
}

/**
 * Environment of a live-mode daemon pointed at `sim` (loopback, so plain ws/http is allowed); without
 * a LIQUIDATOR_CONFIG in `extra`, the built-in policy with its limits set explicitly.
 */
export function daemonEnv(sim: SimulatorHandle, stateDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LIQUIDATOR_CONFIG: builtInLimitsConfig(),
    LIQUIDATOR_VENUE: "live",
    LIQUIDATOR_BASE_URL: sim.baseUrl,
    LIQUIDATOR_WS_URL: sim.wsUrl,
    LIQUIDATOR_WS_PRIVATE_URL: sim.wsPrivateUrl,
    LIQUIDATOR_ACCOUNT_ID: sim.accountId,
    LIQUIDATOR_SECRET: sim.secret,
    LIQUIDATOR_STATE_DIR: stateDir,
    LIQUIDATOR_METRICS_PORT: "0",
    LIQUIDATOR_METRICS_HOST: "127.0.0.1",
    LIQUIDATOR_LOG_LEVEL: "info",
    ...extra,
  };
}

/** The test runner's environment minus every LIQUIDATOR_* variable, plus `env`. */
export function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LIQUIDATOR_")) out[k] = v;
  return { ...out, ...env };
}

import { type Work, waitFor } from "./wait.js";

export { nothingHappens, sleep, waitFor } from "./wait.js";

// ---- the venue's truth ------------------------------------------------------------------------

/** Every claim request (any outcome) the venue received from `accountId`, in arrival order. */
export function requestsFrom(sim: SimulatorHandle, accountId = sim.accountId): ClaimLogEntry[] {
  return sim.core.claimRequests().filter((e) => e.accountId === accountId && e.source === "rest");
}

/** Successful claims of `accountId`. */
export function claimsBy(sim: SimulatorHandle, accountId = sim.accountId): ClaimLogEntry[] {
  return sim.core.claims().filter((e) => e.accountId === accountId);
}

/** liquidation id → number of entries. */
export function countById(entries: readonly ClaimLogEntry[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of entries) if (e.liquidationId !== undefined) out.set(e.liquidationId, (out.get(e.liquidationId) ?? 0) + 1);
  return out;
}

// ---- the daemon's journal and metrics -----------------------------------------------------------

/**
 * Every line the journal in `stateDir` ever held, oldest first: its history segments, then its tail
 * (a polite stop compacts, leaving the tail empty); empty before the daemon created it.
 */
export function journalText(stateDir: string, file = JOURNAL_FILE): string {
  const dir = dirname(join(stateDir, file));
  const read = (path: string): string => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  };
  return [...listSegments(dir).map((s) => read(s.path)), read(join(stateDir, file))].join("");
}

export function readJournal(stateDir: string): JournalReplay {
  return parseJournal(journalText(stateDir));
}

/** Raw journal records in file order (parseJournal keeps only the last intent per id). */
export function journalLines(stateDir: string): Record<string, unknown>[] {
  return journalText(stateDir)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export interface Readyz {
  status: number;
  body: { ready: boolean; reasons?: string[]; role?: string; degraded?: string[] };
  /** The reasons of a 503 (empty when ready). */
  reasons: string[];
}

/** GET /readyz. */
export async function readyz(metricsUrl: string, timeoutMs = 10_000): Promise<Readyz> {
  const res = await fetch(`${metricsUrl}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
  const body = (await res.json()) as Readyz["body"];
  return { status: res.status, body, reasons: Array.isArray(body.reasons) ? body.reasons.map(String) : [] };
}

/** Waits until `/readyz` answers 200: the rig's `until: "ready"`, and a test waiting for readiness to return. */
export async function untilReady(metricsUrl: string, what = "/readyz 200", timeoutMs = 20_000): Promise<void> {
  await waitFor(async () => (await readyz(metricsUrl)).status === 200, what, timeoutMs);
}

export async function scrape(metricsUrl: string): Promise<string> {
  const res = await fetch(`${metricsUrl}/metrics`);
  return res.text();
}

export { metricValue };

/** `name`'s value on the daemon's `/metrics` now (metricValue: 0 for a counter never incremented, NaN for no such series). */
export async function metric(metricsUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return metricValue(await scrape(metricsUrl), name, labels);
}

/**
 * Resolves once the daemon has read the venue's open liquidations `rounds` more times: that many
 * reconcile rounds have run, each offering every open id again. The positive control of a check
 * that nothing was resent (a resend would have happened in one of them).
 */
export async function reconcileRounds(metricsUrl: string, rounds = 3, timeoutMs = 20_000): Promise<void> {
  const reads = reconcileReads(metricsUrl);
  const start = await reads.count();
  await waitFor(async () => (await reads.count()) >= start + rounds, `${rounds} more reconcile rounds`, timeoutMs);
}

/**
 * The daemon's reads of the venue's open liquidations (one per reconcile round: 1 s in-process, 5 s
 * in a child process) as the work `nothingHappens` counts: each round re-decides every open id, and
 * the unwinder, the protections and the drain run on between two of them.
 */
export function reconcileReads(metricsUrl: string): Work {
  return {
    what: "reconcile rounds",
    count: () => metric(metricsUrl, "liquidator_http_requests_total", { endpoint: "/v1/public/liquidation" }),
  };
}

/** One ETH long (about 3,850 of notional at the simulator's start price; fee 0.008). */
export function ethLong(qty = 1): { positions: { symbol: string; position_qty: number }[] } {
  return { positions: [{ symbol: "PERP_ETH_USDC", position_qty: qty }] };
}

/** A liquidation of a long of about `notional` at `symbol`'s current mark (quantity to 0.001); its id. */
export function addLong(sim: SimulatorHandle, symbol: string, notional: number): number {
  const qty = Math.round((notional / (sim.core.mark(symbol) as number)) * 1000) / 1000;
  return sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
}
