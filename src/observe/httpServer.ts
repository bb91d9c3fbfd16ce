/**
 * The metrics/health HTTP server (docs/operations.md "HTTP endpoints and metrics"): `/metrics` in Prometheus text format,
 * `/healthz` (liveness: every loop's watchdog fresh) and `/readyz` (readiness: streams up and marks
 * fresh, judged by the daemon's callback). Plain node:http: three read-only paths need no framework.
 *
 * Liveness and readiness are kept apart on purpose: a container platform restarts on a failed
 * liveness check, so `/healthz` fails only when a restart helps (a wedged loop); a stream that is
 * down reconnects by itself and only makes the daemon not ready.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { AbortedError, ConfigError } from "../errors.js";

interface ObserveHealth {
  /** Names of loops whose watchdog is stale; empty while every loop is alive. */
  stale(): readonly string[];
  /** Why the daemon is not ready (e.g. "private stream down", "mark PERP_BTC_USDC stale"); empty = ready. */
  notReady(): readonly string[];
  /** Extra fields of the `/readyz` answer, ready or not (e.g. `role`, `degraded`). */
  details?(): Record<string, unknown>;
}

export interface ObserveServerOptions {
  host: string;
  /** 0 = any free port (the chosen one is logged and returned). */
  port: number;
  metrics: { readonly registry: Registry };
  health: ObserveHealth;
  logger?: Pick<Logger, "info" | "warn" | "error">;
  /** Aborting closes the server. */
  signal?: AbortSignal;
}

export interface ObserveServer {
  /** Base URL to reach the server (a wildcard host is given as loopback). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const JSON_TYPE = "application/json; charset=utf-8";

export async function startObserveServer(options: ObserveServerOptions): Promise<ObserveServer> {
  const { host, port, metrics, health, logger, signal } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError("metrics.port", `must be an integer in 0..65535, got ${port}`);
  if (signal?.aborted) throw new AbortedError("observe server not started: shutdown requested");

  const server = createServer((req, res) => {
    handle(req, res, metrics.registry, health).catch((err: unknown) => {
      logger?.error({ err, path: req.url }, "observe request failed");
      if (!res.headersSent) send(res, req, 500, JSON_TYPE, `${JSON.stringify({ error: "internal error" })}\n`);
      else res.destroy();
    });
  });
  // A scraper that never finishes its request must not hold a socket forever.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const key = err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND" ? "metrics.host" : "metrics.port";
      reject(new ConfigError(key, `cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  server.on("error", (err) => logger?.error({ err }, "observe server error"));

  const bound = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${bound}`;
  // The caller says where it listens (runDaemon: "metrics server listening"), once.

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      signal?.removeEventListener("abort", close);
      server.close(() => resolve());
      // Prometheus keeps its scrape connection alive; without this close() waits for it to idle out.
      server.closeAllConnections();
    });
    return closing;
  };
  signal?.addEventListener("abort", close, { once: true });
  return { url, port: bound, close };
}

async function handle(req: IncomingMessage, res: ServerResponse, registry: Registry, health: ObserveHealth): Promise<void> {
  const path = (req.url ?? "/").split("?", 1)[0];
  if (path !== "/metrics" && path !== "/healthz" && path !== "/readyz") {
    send(res, req, 404, JSON_TYPE, `${JSON.stringify({ error: "not found" })}\n`);
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    send(res, req, 405, JSON_TYPE, `${JSON.stringify({ error: "method not allowed" })}\n`);
    return;
  }
  if (path === "/metrics") {
    const body = await registry.metrics();
    send(res, req, 200, registry.contentType, body);
    return;
  }
  if (path === "/healthz") {
    const stale = guard(() => health.stale(), ["liveness check failed"]);
    const ok = stale.length === 0;
    send(res, req, ok ? 200 : 503, JSON_TYPE, `${JSON.stringify(ok ? { status: "ok" } : { status: "stale", stale })}\n`);
    return;
  }
  const reasons = guard(() => health.notReady(), ["readiness check failed"]);
  const ready = reasons.length === 0;
  let details: Record<string, unknown> = {};
  try {
    details = health.details?.() ?? {};
  } catch {
    // Details are informative; readiness itself is already decided.
  }
  send(
    res,
    req,
    ready ? 200 : 503,
    JSON_TYPE,
    `${JSON.stringify(ready ? { ready: true, ...details } : { ready: false, reasons, ...details })}\n`,
  );
}

/** A throwing health callback is an unhealthy answer, not a crashed request. */
function guard(fn: () => readonly string[], onThrow: string[]): string[] {
  try {
    return [...fn()];
  } catch {
    return onThrow;
  }
}

function send(res: ServerResponse, req: IncomingMessage, status: number, contentType: string, body: string): void {
  res.statusCode = status;
  res.setHeader("content-type", contentType);
  res.setHeader("cache-control", "no-store");
  res.setHeader("content-length", Buffer.byteLength(body));
  res.end(req.method === "HEAD" ? undefined : body);
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
