/**
 * Two (or more) daemons as child processes on one account, sharing a real PostgreSQL server, against
 * the simulated venue in this process: who leads (from /readyz), what each sent (the venue's claim
 * log by key), kill -9 / SIGSTOP. Not a test file itself.
 */
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import type { Build } from "./buildOnce.js";
import { daemonEnv, waitFor, writePolicyFile } from "./daemonHarness.js";
import { type DaemonProcess, spawnDaemon } from "./daemonProcess.js";

export interface Replica {
  name: string;
  dir: string;
  proc: DaemonProcess;
  url: string;
  publicKey: string;
}

export interface ReadyzBody {
  ready: boolean;
  role?: string;
  reasons?: string[];
}

export async function readyzOf(url: string): Promise<{ status: number; body: ReadyzBody } | undefined> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
    return { status: res.status, body: (await res.json()) as ReadyzBody };
  } catch {
    return undefined; // stopped, frozen or gone
  }
}

/** Starts one replica in `dir` (its state dir) with its own key registered at the venue (each replica may use its own). */
export async function startReplica(o: { build: Build; sim: SimulatorHandle; dbUrl: string; name: string; dir: string }): Promise<Replica> {
  const key = generateKeyPair();
  o.sim.core.accounts.registerKey(o.sim.accountId, key.publicKey);
  const stateDir = o.dir;
  const config = await writePolicyFile(stateDir, {
    max_claim_notional: 1_000_000,
    max_total_exposure: 100_000_000,
    min_fee: 0,
    max_mark_age_ms: 5_000,
  });
  const env = daemonEnv(o.sim, stateDir, {
    LIQUIDATOR_CONFIG: config,
    LIQUIDATOR_SECRET: key.secret,
    LIQUIDATOR_STATE_BACKEND: "postgres",
    LIQUIDATOR_POSTGRES_URL: o.dbUrl,
    LIQUIDATOR_UNWIND_MODE: "off",
    LIQUIDATOR_LOG_LEVEL: "info",
  });
  const proc = spawnDaemon(o.build.cli, [], env, stateDir);
  return { name: o.name, dir: stateDir, proc, url: await proc.metricsUrl(), publicKey: key.publicKey };
}

/** The replica whose /readyz says `leader` (waits for one). */
export async function leaderOf(replicas: readonly Replica[], timeoutMs = 15_000): Promise<Replica> {
  return waitFor(
    async () => {
      for (const r of replicas) {
        if (r.proc.exited()) continue;
        if ((await readyzOf(r.url))?.body.role === "leader") return r;
      }
      return undefined;
    },
    "a leader",
    timeoutMs,
    50,
  );
}
