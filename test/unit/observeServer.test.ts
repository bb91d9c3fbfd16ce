import { createServer } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { type ObserveServer, startObserveServer } from "../../src/observe/httpServer.js";
import { createLogger } from "../../src/observe/logger.js";
import { createMetrics } from "../../src/observe/metrics.js";
import { Watchdog } from "../../src/observe/watchdog.js";
import { waitFor } from "../support/wait.js";

const servers: ObserveServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(
  health: { stale(): readonly string[]; notReady(): readonly string[] },
  extra: { signal?: AbortSignal; logger?: ReturnType<typeof createLogger> } = {},
) {
  const metrics = createMetrics({ version: "9.9.9", commit: "feedbee", defaultMetrics: false });
  const server = await startObserveServer({ host: "127.0.0.1", port: 0, metrics, health, ...extra });
  servers.push(server);
  return { server, metrics };
}

const alive = { stale: () => [], notReady: () => [] };

describe("Watchdog", () => {
  it("judges staleness per loop with the injected clock and feeds the watchdog gauges", async () => {
    let now = 0;
    const w = new Watchdog({ now: () => now });
    w.register("a", 100);
    w.register("b", 1000);
    expect(w.stale()).toEqual([]);
    now = 150;
    expect(w.stale()).toEqual(["a"]);
    expect(w.stale(50)).toEqual([]);
    w.kick("a");
    expect(w.stale()).toEqual([]);
    now = 1200;
    expect(w.stale()).toEqual(["a", "b"]);
    w.unregister("b");
    expect(w.stale()).toEqual(["a"]);
    expect(() => w.kick("nope")).toThrow(RangeError);
    expect(() => w.register("c", 0)).toThrow(RangeError);

    const metrics = createMetrics({ defaultMetrics: false });
    metrics.setWatchdogSource(() => w.samples());
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^liquidator_watchdog_age_seconds\{loop="a"\} 1.05$/m);
    expect(text).toMatch(/^liquidator_watchdog_limit_seconds\{loop="a"\} 0.1$/m);
  });
});

describe("observe server", () => {
  it("serves /metrics in the Prometheus text format", async () => {
    const { server, metrics } = await start(alive);
    metrics.liquidationsSeen.inc(4);
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await res.text();
    expect(body).toContain('liquidator_build_info{version="9.9.9",commit="feedbee"');
    expect(body).toMatch(/^liquidator_liquidations_seen_total 4$/m);
    // The query string does not change the path.
    expect((await fetch(`${server.url}/metrics?name[]=x`)).status).toBe(200);
  });

  it("/healthz is 200 while every watchdog is fresh and 503 naming the stale loops", async () => {
    let now = 1_000_000;
    const watchdog = new Watchdog({ now: () => now });
    watchdog.register("claimer", 5_000);
    watchdog.register("public_stream", 30_000);
    const { server } = await start({ stale: () => watchdog.stale(), notReady: () => [] });

    let res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });

    now += 6_000; // claimer's limit passed, the stream's not
    res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "stale", stale: ["claimer"] });

    watchdog.kick("claimer");
    res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it("/readyz is 503 with the reasons while not ready and 200 once ready", async () => {
    let reasons: string[] = ["public stream down", "mark PERP_BTC_USDC stale"];
    const { server } = await start({ stale: () => [], notReady: () => reasons });
    let res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ ready: false, reasons: ["public stream down", "mark PERP_BTC_USDC stale"] });

    reasons = [];
    res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ready: true });

    // Streams drop again: not ready again. Liveness is unaffected.
    reasons = ["private stream down"];
    res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ready: false, reasons: ["private stream down"] });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("a throwing health callback is an unhealthy answer, not a crash", async () => {
    const { server } = await start({
      stale: () => {
        throw new Error("boom");
      },
      notReady: () => {
        throw new Error("boom");
      },
    });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, reasons: ["readiness check failed"] });
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "stale", stale: ["liveness check failed"] });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
  });

  it("answers 404 to other paths, 405 to other methods, and HEAD without a body", async () => {
    const { server } = await start(alive);
    const nf = await fetch(`${server.url}/`);
    expect(nf.status).toBe(404);
    await nf.body?.cancel();
    expect((await fetch(`${server.url}/metrics/extra`)).status).toBe(404);
    const post = await fetch(`${server.url}/metrics`, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    await post.body?.cancel();
    const head = await fetch(`${server.url}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("chooses a port for port 0 and leaves saying so to its caller (one start-up line per port)", async () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk.toString("utf8"));
        cb();
      },
    });
    const logger = createLogger({ level: "info", destination });
    const { server } = await start(alive, { logger });
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(chunks.join("")).toBe("");
  });

  it("close() and the abort signal stop the server, keep-alive connections included", async () => {
    const { server } = await start(alive);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200); // leaves a pooled keep-alive socket
    await server.close();
    await server.close(); // idempotent
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();

    const controller = new AbortController();
    const { server: second } = await start(alive, { signal: controller.signal });
    expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    controller.abort();
    await waitFor(
      () =>
        fetch(`${second.url}/readyz`).then(
          () => false,
          () => true,
        ),
      "the server closed on abort",
      10_000,
    );
  });

  it("a port in use is a config error naming metrics.port; an aborted signal refuses to start", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const metrics = createMetrics({ defaultMetrics: false });
      const attempt = startObserveServer({ host: "127.0.0.1", port, metrics, health: alive });
      await expect(attempt).rejects.toBeInstanceOf(ConfigError);
      await expect(attempt).rejects.toMatchObject({ key: "metrics.port" });
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    const aborted = AbortSignal.abort();
    await expect(
      startObserveServer({ host: "127.0.0.1", port: 0, metrics: createMetrics({ defaultMetrics: false }), health: alive, signal: aborted }),
    ).rejects.toThrow();
  });
});
