/**
 * The daemon as a user starts it: `node dist/cli.js run --config FILE` with the secret in
 * LIQUIDATOR_SECRET, live mode against the bench's venue on loopback, a temporary state dir, metrics
 * on a free loopback port, log level warn. Readiness is the daemon's own `/readyz`; event-loop delay
 * comes from its `/metrics` (prom-client's monitorEventLoopDelay, reset at every scrape), RSS from
 * /proc/<pid>/status (sampled without disturbing the daemon).
 */

import type { ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { metricValue } from "../observe/promText.js";
import { type ProcessGroup, poll, stopChild } from "./children.js";
import { shadowSectionYaml } from "./shadowBench.js";
import type { VenueInfo } from "./venueProtocol.js";

export interface DaemonRunOptions {
  cli: string;
  venue: VenueInfo;
  workDir: string;
  claimsPerSecond: number;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** `state.capture` on (docs/policy-lab.md): the capture's cost is then part of what is measured. */
  capture?: boolean;
  /** `venue.claim_rehearsal_ms`; none: the daemon's default. */
  claimRehearsalMs?: number;
  /** Shadow variants in the config (shadowBench.ts); none: 0. */
  shadows?: number;
  /** `policy.max_margin_usage`; none: the daemon's default. */
  maxMarginUsage?: number;
  /** `unwind.mode: off` (positions kept: one margin budget decides). */
  unwindOff?: boolean;
  /** `forecast.enabled` and `forecast.interval_s`; none: the daemon's defaults (on, every 30 s). */
  forecast?: { enabled: boolean; intervalS: number };
}

export interface RunningDaemon {
  child: ChildProcess;
  metricsUrl: string;
  /** Output kept for error messages (warn and above). */
  output(): string;
  scrape(): Promise<DaemonScrape>;
  /** Resident set size now, bytes (Linux /proc), or NaN. */
  rssBytes(): number;
  stop(): Promise<void>;
}

export interface DaemonScrape {
  eventLoopP99Seconds: number;
  rssBytes: number;
  /** Claims so far by connection: warm, fresh (had to connect first), pool. */
  claimConnections: { warm: number; fresh: number; pool: number };
  /** The shadows' CPU seconds and replayed events so far. */
  shadow: { cpuSeconds: number; events: number };
  /** Heatmap polls that succeeded so far. */
  forecastPolls: number;
}

/** A free TCP port on loopback (closed again at once; the daemon binds it right after). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function configYaml(o: DaemonRunOptions, port: number, stateDir: string): string {
  const v = o.venue;
  // Caps far above what the scenarios offer: every liquidation is claimable, whole.
  return `venue:
  mode: live
  base_url: ${v.baseUrl}
  ws_url: ${v.wsUrl}
  ws_private_url: ${v.wsPrivateUrl ?? v.wsUrl}
  account_id: "${v.accountId}"${o.claimRehearsalMs === undefined ? "" : `\n  claim_rehearsal_ms: ${o.claimRehearsalMs}`}
  limits:
    public_per_second: 10
    claims_per_second: ${o.claimsPerSecond}
    admin_orders_per_second: 10
policy:
  max_claim_notional: 1000000000
  max_total_exposure: 1000000000000
  min_fee: 0${o.maxMarginUsage === undefined ? "" : `\n  max_margin_usage: ${o.maxMarginUsage}`}${o.unwindOff === true ? "\nunwind:\n  mode: off" : ""}
metrics:
  host: 127.0.0.1
  port: ${port}
state:
  dir: ${JSON.stringify(stateDir)}
log:
  level: warn
${o.forecast === undefined ? "" : `forecast:\n  enabled: ${o.forecast.enabled}\n  interval_s: ${o.forecast.intervalS}\n`}${shadowSectionYaml(o.shadows ?? 0)}`;
}

function procRssBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? Number.NaN : Number(m[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

export async function startDaemon(group: ProcessGroup, o: DaemonRunOptions, tag: string): Promise<RunningDaemon> {
  const dir = join(o.workDir, tag);
  const stateDir = join(dir, "state");
  mkdirSync(stateDir, { recursive: true });
  const port = await freePort();
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, configYaml(o, port, stateDir));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    LIQUIDATOR_SECRET: o.venue.secret,
    NODE_ENV: "production",
    ...(o.capture === true ? { LIQUIDATOR_CAPTURE: "1" } : {}),
  };
  const child = group.spawn(process.execPath, [...(o.nodeArgs ?? []), o.cli, "run", "--config", configPath], {
    env,
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (s: string): void => {
    out = (out + s).slice(-20_000);
  };
  child.stdout?.setEncoding("utf8").on("data", keep);
  child.stderr?.setEncoding("utf8").on("data", keep);
  const metricsUrl = `http://127.0.0.1:${port}`;
  await poll(
    "the daemon's /readyz",
    async () => {
      if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${out.slice(-2000)}`);
      try {
        const res = await fetch(`${metricsUrl}/readyz`);
        await res.arrayBuffer();
        return res.status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    30_000,
    100,
  );
  return {
    child,
    metricsUrl,
    output: () => out,
    rssBytes: () => procRssBytes(child.pid),
    scrape: async () => {
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
      return {
        eventLoopP99Seconds: metricValue(text, "liquidator_nodejs_eventloop_lag_p99_seconds"),
        rssBytes: metricValue(text, "liquidator_process_resident_memory_bytes"),
        claimConnections: {
          warm: metricValue(text, "liquidator_claim_connections_total", { kind: "warm" }),
          fresh: metricValue(text, "liquidator_claim_connections_total", { kind: "fresh" }),
          pool: metricValue(text, "liquidator_claim_connections_total", { kind: "pool" }),
        },
        shadow: {
          cpuSeconds: metricValue(text, "liquidator_shadow_cpu_seconds_total"),
          events: metricValue(text, "liquidator_shadow_events_total"),
        },
        forecastPolls: metricValue(text, "liquidator_forecast_polls_total", { result: "ok" }),
      };
    },
    stop: async () => {
      const r = await stopChild(child);
      if (r.code !== 0) process.stderr.write(`bench: daemon ${tag} exited with ${r.code ?? r.signal}\n${out.slice(-2000)}\n`);
    },
  };
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { freePort as freePortForTests };
