/**
 * Two (or more) daemons as child processes on one account, sharing a real PostgreSQL server, against
 * the simulated venue in this process: who leads (from /readyz), a steady flow of liquidations, and
 * replicas the rig kills (waking a frozen one first) after the test. Not a test file itself.
 */
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import type { Build } from "./buildOnce.js";
import { daemonEnv, ethLong, OPEN_POLICY, type Readyz, readyz, waitFor, writePolicyFile } from "./daemonHarness.js";
import type { DaemonProcess } from "./daemonProcess.js";
import type { Rig } from "./rig.js";

export interface Replica {
  name: string;
  dir: string;
  proc: DaemonProcess;
  url: string;
  publicKey: string;
}

/** A replica's /readyz, or undefined when it does not answer within 2 s (stopped, frozen or gone). */
export function readyzOf(url: string): Promise<Readyz | undefined> {
  return readyz(url, 2_000).catch(() => undefined);
}

export interface HaRig {
  /** Every replica started, in order. */
  readonly replicas: Replica[];
  /** Starts one replica with its own key registered at the venue (each may use its own), state in `dir` or a new temp dir. */
  replica(dbUrl: string, name: string, dir?: string): Promise<Replica>;
  /** The replica whose /readyz says `leader` (waits for one). */
  leader(timeoutMs?: number): Promise<Replica>;
  /** Opens a small ETH liquidation every `everyMs` (at most `count`) until stopped; returns the ids opened so far (a live list). */
  feed(everyMs: number, count?: number): number[];
  stopFeeding(): void;
}

export function haRig(rig: Rig, build: Build, sim: SimulatorHandle): HaRig {
  const replicas: Replica[] = [];
  let feeding: AbortController | undefined;
  return {
    replicas,
    replica: async (dbUrl, name, dir) => {
      const key = generateKeyPair();
      sim.core.accounts.registerKey(sim.accountId, key.publicKey);
      const stateDir = dir ?? (await rig.dir(`ha-${name}`));
      const config = await writePolicyFile(stateDir, OPEN_POLICY);
      const env = daemonEnv(sim, stateDir, {
        LIQUIDATOR_CONFIG: config,
        LIQUIDATOR_SECRET: key.secret,
        LIQUIDATOR_STATE_BACKEND: "postgres",
        LIQUIDATOR_POSTGRES_URL: dbUrl,
        LIQUIDATOR_UNWIND_MODE: "off",
      });
      const proc = rig.spawn(build.cli, [], env, stateDir);
      const r = { name, dir: stateDir, proc, url: await proc.metricsUrl(), publicKey: key.publicKey };
      replicas.push(r);
      return r;
    },
    leader: (timeoutMs = 15_000) =>
      waitFor(
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
      ),
    feed: (everyMs, count = Number.POSITIVE_INFINITY) => {
      const ids: number[] = [];
      feeding = new AbortController();
      const timer = setInterval(() => {
        if (ids.length < count) ids.push(sim.core.addLiquidation(ethLong(0.01)));
      }, everyMs);
      feeding.signal.addEventListener("abort", () => clearInterval(timer), { once: true });
      rig.defer(() => clearInterval(timer));
      return ids;
    },
    stopFeeding: () => feeding?.abort(),
  };
}
