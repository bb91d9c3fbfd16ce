/**
 * The daemon run in this process by `runDaemon` (live mode against a simulated venue over loopback),
 * its logs collected. The one in-process starter of the tests; the rig (rig.ts) stops what it starts.
 * Not a test file itself.
 */
import { type RunDaemonOptions, runDaemon } from "../../src/app/runDaemon.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { daemonEnv, OPEN_POLICY, untilReady, writePolicyFile } from "./daemonHarness.js";
import { defaultConfig } from "./defaultConfig.js";
import { LogCollector } from "./logCollector.js";
import { waitFor } from "./wait.js";

export type DaemonTiming = NonNullable<RunDaemonOptions["timing"]>;

/** Short stream timings so a reconnect takes well under a second on a quiet machine. */
export const FAST_TIMING: DaemonTiming = {
  reconcileIntervalMs: 1_000,
  pingIntervalMs: 1_000,
  deadAfterMs: 5_000,
  backoff: { initialMs: 50, maxMs: 250 },
};

export interface InProcessDaemonOptions {
  sim: SimulatorHandle;
  stateDir: string;
  /** Policy keys over `policyBase`. */
  policy?: Record<string, unknown>;
  /**
   * "open" (default): OPEN_POLICY, every test liquidation let through. "built-in": the policy an
   * operator gets with no policy section (the readiness tests judge its mark age).
   */
  policyBase?: "open" | "built-in";
  /** Config sections besides `policy` (e.g. `unwind`, `venue`). */
  sections?: Record<string, unknown>;
  /** Where the config file is written: the state dir unless the test makes that unusable. */
  configDir?: string;
  env?: Record<string, string>;
  /** Over a 1 s reconcile and 50–500 ms backoff. */
  timing?: DaemonTiming;
  /**
   * "running" (default): resolve once the daemon claims. "ready": once `/readyz` also answers 200
   * (both streams up, marks fresh), what most tests wait for before they act. "listening": once its
   * metrics server is up, for a daemon that may never get further (a journal that cannot open;
   * /readyz says why).
   */
  until?: "running" | "ready" | "listening";
  /** Wraps the daemon's state store (write failures injected at the store's boundary). */
  wrapStore?: RunDaemonOptions["wrapStore"];
}

export interface InProcessDaemon {
  metricsUrl: string;
  logs: LogCollector;
  stateDir: string;
  /** Resolves (or rejects) when runDaemon returns: its exit status (0, or 3 after a safe stop that left positions open). */
  done: Promise<number>;
  /** Abort and wait for runDaemon to return. */
  stop(): Promise<void>;
}

export async function startInProcessDaemon(o: InProcessDaemonOptions): Promise<InProcessDaemon> {
  // Live mode wants the claim limits set explicitly (config/liveLimits.ts): "built-in" sets them to their built-in values.
  const builtIn = defaultConfig().policy;
  const explicitBuiltIn = {
    max_claim_notional: builtIn.max_claim_notional,
    max_total_exposure: builtIn.max_total_exposure,
    min_fee: builtIn.min_fee,
  };
  const policy = o.policyBase === "built-in" ? { ...explicitBuiltIn, ...o.policy } : { ...OPEN_POLICY, ...o.policy };
  const configPath = await writePolicyFile(o.configDir ?? o.stateDir, policy, "policy.yaml", o.sections);
  const env = daemonEnv(o.sim, o.stateDir, { LIQUIDATOR_CONFIG: configPath, ...o.env });
  const loaded = await loadConfig({ env });
  const logs = new LogCollector();
  const controller = new AbortController();
  let started: (url: string) => void = () => undefined;
  const startedP = new Promise<string>((resolve) => (started = resolve));
  const done = runDaemon({
    loaded,
    env,
    signal: controller.signal,
    logDestination: logs,
    onStarted: (info) => started(info.metricsUrl),
    timing: { reconcileIntervalMs: 1_000, fundPollMs: 1_000, backoff: { initialMs: 50, maxMs: 500 }, ...o.timing },
    ...(o.wrapStore !== undefined ? { wrapStore: o.wrapStore } : {}),
  });
  let ended = false;
  const endedP = done.then(
    () => {
      ended = true;
      throw new Error(`daemon ended before it started:\n${logs.text()}`);
    },
    (err: unknown) => {
      ended = true;
      throw err;
    },
  );
  endedP.catch(() => undefined);
  const metricsUrl =
    o.until === "listening"
      ? waitFor(
          () => {
            if (ended) throw new Error("daemon ended before its metrics server listened");
            return logs.find("metrics server listening")[0]?.url as string | undefined;
          },
          "the daemon's metrics server",
          20_000,
        )
      : Promise.race([startedP, endedP]);
  const url = await metricsUrl;
  if (o.until === "ready") await Promise.race([untilReady(url, "the daemon's /readyz 200", 30_000), endedP]);
  return {
    metricsUrl: url,
    logs,
    stateDir: o.stateDir,
    done,
    stop: async () => {
      controller.abort(new Error("test stop"));
      await done;
    },
  };
}
