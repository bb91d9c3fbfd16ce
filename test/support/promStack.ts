/**
 * Real Prometheus and Alertmanager (Debian's binaries) as child processes on free loopback ports
 * with temp config and data folders, and a webhook receiver that records what Alertmanager
 * delivers. Each `start*` returns a handle whose `stop()` ends the process and removes its folder.
 * Not a test file itself.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { waitFor } from "./wait.js";

export const PROMETHEUS_BIN = "prometheus";
export const ALERTMANAGER_BIN = "prometheus-alertmanager";

export interface Service {
  url: string;
  dir: string;
  output(): string;
  stop(): Promise<void>;
}

/** A port that was free a moment ago (the binaries cannot report the port 0 gave them). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

async function startBinary(name: string, bin: string, args: (port: number, dir: string) => string[], dir: string): Promise<Service> {
  const port = await freePort();
  const child: ChildProcess = spawn(bin, args(port, dir), { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => (output += s));
  child.stderr?.setEncoding("utf8").on("data", (s: string) => (output += s));
  const exited = once(child, "close");
  let done = false;
  void exited.then(() => (done = true));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (!done) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (done) throw new Error(`${name} exited: ${output}`);
        return (await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) })).ok;
      },
      `${name} ready`,
      30_000,
      200,
    );
  } catch (err) {
    await stop();
    throw new Error(`${String(err)}\n${output}`);
  }
  return { url, dir, output: () => output, stop };
}

/**
 * Prometheus scraping `target` (one or several) as job `liquidator` every second, with `rulesYaml`
 * (none by default), alerting `alertmanager` when given.
 */
export async function startPrometheus(o: { target: string | string[]; rulesYaml?: string; alertmanager?: string }): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), "liq-prom-"));
  await writeFile(join(dir, "alerts.yml"), o.rulesYaml ?? "groups: []\n");
  const config = {
    global: { scrape_interval: "1s", evaluation_interval: "1s" },
    rule_files: ["alerts.yml"],
    ...(o.alertmanager !== undefined ? { alerting: { alertmanagers: [{ static_configs: [{ targets: [o.alertmanager] }] }] } } : {}),
    scrape_configs: [{ job_name: "liquidator", static_configs: [{ targets: typeof o.target === "string" ? [o.target] : o.target }] }],
  };
  await writeFile(join(dir, "prometheus.yml"), stringify(config));
  return startBinary(
    "prometheus",
    PROMETHEUS_BIN,
    (port, d) => [
      `--config.file=${join(d, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(d, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    dir,
  );
}

/** Alertmanager with `configPath`, clustering off (it would bind 9094). */
export async function startAlertmanager(configPath: string): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), "liq-am-run-"));
  return startBinary(
    "alertmanager",
    ALERTMANAGER_BIN,
    (port, d) => [
      `--config.file=${configPath}`,
      `--storage.path=${join(d, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
      "--log.level=warn",
    ],
    dir,
  );
}

export interface WebhookAlert {
  status: "firing" | "resolved";
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
export interface Delivery {
  headers: IncomingHttpHeaders;
  body: { status: string; receiver: string; alerts: WebhookAlert[] };
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  stop(): Promise<void>;
}

/** Records every POST (Alertmanager's webhook JSON) and answers 200. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (s: string) => (text += s));
    req.on("end", () => {
      try {
        deliveries.push({ headers: req.headers, body: JSON.parse(text) as Delivery["body"] });
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    deliveries,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
