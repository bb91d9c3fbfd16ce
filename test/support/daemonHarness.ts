/**
 * Shared pieces of the daemon's integration tests: a quiet simulated venue on port 0, the daemon's
 * environment pointing at it (live mode over loopback), an in-process `runDaemon` with its logs
 * collected, and readers for the venue's truth (claim log), the daemon's journal and `/metrics`.
 * Not a test file itself.
 */

import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { stringify } from "yaml";
import { type RunDaemonOptions, runDaemon } from "../../src/app/runDaemon.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { sampleValue } from "../../src/observe/promText.js";
import type { ClaimLogEntry } from "../../src/sim/claimLog.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, type StartSimulatorOptions, startSimulator } from "../../src/sim/startSimulator.js";
import { JOURNAL_FILE } from "../../src/store/fileJournal.js";
import { type JournalReplay, parseJournal } from "../../src/store/journalRecords.js";

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

/** Writes `config.yaml` with the given policy (and any other sections) into `dir`; returns its path. */
export async function writePolicyFile(
  dir: string,
  policy: Record<string, unknown>,
  name = "config.yaml",
  sections: Record<string, unknown> = {},
): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, stringify({ ...sections, policy }));
  return path;
}

/** Environment of a live-mode daemon pointed at `sim` (loopback, so plain ws/http is allowed). */
export function daemonEnv(sim: SimulatorHandle, stateDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
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

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** A pino destination that keeps every JSON line (parsed). */
export class LogCollector extends Writable {
  readonly lines: LogLine[] = [];
  #partial = "";

  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.push(chunk.toString());
    cb();
  }

  /** Feed raw text (also used for a child's stdout). */
  push(text: string): void {
    const parts = (this.#partial + text).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const line of parts) {
      if (line.trim() === "") continue;
      try {
        this.lines.push(JSON.parse(line) as LogLine);
      } catch {
        this.lines.push({ level: "raw", msg: line });
      }
    }
  }

  has(msg: string): boolean {
    return this.lines.some((l) => l.msg === msg);
  }

  find(msg: string): LogLine[] {
    return this.lines.filter((l) => l.msg === msg);
  }
}

export interface DaemonTiming {
  reconcileIntervalMs?: number;
  pingIntervalMs?: number;
  deadAfterMs?: number;
  backoff?: { initialMs: number; maxMs: number; authInitialMs?: number; authMaxMs?: number };
}

export interface InProcessDaemon {
  metricsUrl: string;
  logs: LogCollector;
  stateDir: string;
  /** Resolves (or rejects) when runDaemon returns. */
  done: Promise<void>;
  /** Abort and wait for runDaemon to return. */
  stop(): Promise<void>;
}

/** Runs the daemon in this process against `sim`; resolves once its metrics server is up. */
export async function startInProcessDaemon(o: {
  sim: SimulatorHandle;
  stateDir: string;
  policy?: Record<string, unknown>;
  /** Config sections besides `policy` (e.g. `unwind`). */
  sections?: Record<string, unknown>;
  env?: Record<string, string>;
  timing?: DaemonTiming;
}): Promise<InProcessDaemon> {
  const configPath = await writePolicyFile(o.stateDir, { ...OPEN_POLICY, ...o.policy }, "policy.yaml", o.sections);
  const env = daemonEnv(o.sim, o.stateDir, { LIQUIDATOR_CONFIG: configPath, ...o.env });
  const loaded = await loadConfig({ env });
  const logs = new LogCollector();
  const controller = new AbortController();
  let started: (url: string) => void = () => undefined;
  const startedP = new Promise<string>((resolve) => (started = resolve));
  const options: RunDaemonOptions = {
    loaded,
    env,
    signal: controller.signal,
    logDestination: logs,
    onStarted: (info) => started(info.metricsUrl),
    timing: { reconcileIntervalMs: 1_000, backoff: { initialMs: 50, maxMs: 500 }, ...o.timing },
  };
  const done = runDaemon(options);
  const metricsUrl = await Promise.race([startedP, done.then(() => Promise.reject(new Error("daemon ended before it started")))]);
  return {
    metricsUrl,
    logs,
    stateDir: o.stateDir,
    done,
    stop: async () => {
      controller.abort(new Error("test stop"));
      await done;
    },
  };
}

export { sleep, waitFor } from "./wait.js";

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

export function readJournal(stateDir: string): JournalReplay {
  let text = "";
  try {
    text = readFileSync(join(stateDir, JOURNAL_FILE), "utf8");
  } catch {
    // not created yet
  }
  return parseJournal(text);
}

/** Raw journal records in file order (parseJournal keeps only the last intent per id). */
export function journalLines(stateDir: string): Record<string, unknown>[] {
  let text = "";
  try {
    text = readFileSync(join(stateDir, JOURNAL_FILE), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function scrape(metricsUrl: string): Promise<string> {
  const res = await fetch(`${metricsUrl}/metrics`);
  return res.text();
}

/** Sum of the samples of `name` whose labels include every pair in `labels` (0 when none). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  return sampleValue(text, name, labels) ?? 0;
}

export async function metric(metricsUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return metricValue(await scrape(metricsUrl), name, labels);
}

/** One ETH long (about 3,850 of notional at the simulator's start price; fee 0.008). */
export function ethLong(qty = 1): { positions: { symbol: string; position_qty: number }[] } {
  return { positions: [{ symbol: "PERP_ETH_USDC", position_qty: qty }] };
}
