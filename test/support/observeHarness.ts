/**
 * The observability tests' setup: the simulated venue on port 0 and the daemon run in-process by
 * `runDaemon` in live mode against it over loopback (allowed in live mode), with its metrics server
 * on a free loopback port. Logs go to an in-memory sink so a test can read every byte written.
 *
 * Kept apart from the daemon tests' own harness on purpose (another file, another owner).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { stringify } from "yaml";
import { type RunDaemonOptions, runDaemon } from "../../src/app/runDaemon.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { parseLabels, sampleValue as promSample } from "../../src/observe/promText.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, type StartSimulatorOptions, startSimulator } from "../../src/sim/startSimulator.js";

/** Every line the daemon logged, as raw text (what an operator's log collector would receive). */
export class LogSink extends Writable {
  readonly chunks: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.chunks.push(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
    done();
  }
  text(): string {
    return this.chunks.join("");
  }
  /** Parsed JSON lines (non-JSON lines are skipped). */
  lines(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const line of this.text().split("\n")) {
      if (line.trim() === "") continue;
      try {
        out.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a pretty or partial line: not this helper's business
      }
    }
    return out;
  }
}

export interface ObserveHarnessOptions {
  /** Extra simulator options; the scenario defaults to QUIET_SCENARIO (merged under `sim.scenario`). */
  sim?: StartSimulatorOptions;
  /** YAML config merged over the harness's defaults (one level deep per section). */
  config?: (sim: SimulatorHandle) => Record<string, Record<string, unknown>>;
  /** Extra environment variables. */
  env?: Record<string, string>;
  timing?: RunDaemonOptions["timing"];
}

export interface ObserveHarness {
  sim: SimulatorHandle;
  metricsUrl: string;
  logs: LogSink;
  stateDir: string;
  get(path: string): Promise<{ status: number; text: string }>;
  /** The daemon's run promise (rejects if it crashed). */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** Short stream timings so a reconnect takes well under a second on a quiet machine. */
export const FAST_TIMING: NonNullable<RunDaemonOptions["timing"]> = {
  reconcileIntervalMs: 1_000,
  pingIntervalMs: 1_000,
  deadAfterMs: 5_000,
  backoff: { initialMs: 50, maxMs: 250 },
};

export async function startObserveHarness(options: ObserveHarnessOptions = {}): Promise<ObserveHarness> {
  const sim = await startSimulator({
    port: 0,
    seed: 7,
    ...options.sim,
    scenario: { ...QUIET_SCENARIO, ...options.sim?.scenario },
  });
  const stateDir = await mkdtemp(join(tmpdir(), "liq-observe-"));
  const logs = new LogSink();
  const controller = new AbortController();
  let done: Promise<void> | undefined;
  try {
    const base: Record<string, Record<string, unknown>> = { log: { level: "info" } };
    const extra = options.config?.(sim) ?? {};
    const doc: Record<string, Record<string, unknown>> = { ...base };
    for (const [section, value] of Object.entries(extra)) doc[section] = { ...doc[section], ...value };
    const configPath = join(stateDir, "config.yaml");
    await writeFile(configPath, stringify(doc));
    const env: NodeJS.ProcessEnv = {
      LIQUIDATOR_VENUE: "live",
      LIQUIDATOR_BASE_URL: sim.baseUrl,
      LIQUIDATOR_WS_URL: sim.wsUrl,
      LIQUIDATOR_WS_PRIVATE_URL: sim.wsPrivateUrl,
      LIQUIDATOR_ACCOUNT_ID: sim.accountId,
      LIQUIDATOR_SECRET: sim.secret,
      LIQUIDATOR_STATE_DIR: join(stateDir, "state"),
      LIQUIDATOR_METRICS_HOST: "127.0.0.1",
      LIQUIDATOR_METRICS_PORT: "0",
      ...options.env,
    };
    const loaded = await loadConfig({ path: configPath, env });
    let started: (url: string) => void = () => undefined;
    const metricsUrl = new Promise<string>((resolve) => (started = resolve));
    done = runDaemon({
      loaded,
      env,
      signal: controller.signal,
      logDestination: logs,
      onStarted: (info) => started(info.metricsUrl),
      timing: options.timing ?? FAST_TIMING,
    });
    const url = await Promise.race([
      metricsUrl,
      done.then(() => {
        throw new Error(`daemon ended before it started:\n${logs.text()}`);
      }),
    ]);
    const get = async (path: string): Promise<{ status: number; text: string }> => {
      const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, text: await res.text() };
    };
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        controller.abort();
        await done?.catch(() => undefined);
        await sim.close();
        await rm(stateDir, { recursive: true, force: true });
      })();
      return stopping;
    };
    return { sim, metricsUrl: url, logs, stateDir, get, done, stop };
  } catch (err) {
    controller.abort();
    await done?.catch(() => undefined);
    await sim.close();
    await rm(stateDir, { recursive: true, force: true });
    throw err;
  }
}

export { waitFor } from "./wait.js";

/** The value of `name` with the given labels (written as in a scrape: `stream="public"`), or undefined. */
export function sampleValue(text: string, name: string, labels = ""): number | undefined {
  return promSample(text, name, parseLabels(labels));
}
