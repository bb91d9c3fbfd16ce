import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, prettyByDefault, redactPathsForTests } from "../../src/observe/logger.js";
import { REDACTED } from "../../src/redaction.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { waitFor } from "../support/wait.js";

/** A real destination stream that keeps every byte written to it. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      cb();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  await waitFor(cond, what, 10_000, 10);
}

const LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;

/** Log objects that put `secret` (and a real signature of it) at every redacted path. */
function secretBearingObjects(secret: string, signature: string): Record<string, unknown>[] {
  return [
    { secret },
    { config: { secret } },
    { loaded: { config: { secret } } },
    { LIQUIDATOR_SECRET: secret },
    { env: { LIQUIDATOR_SECRET: secret, LIQUIDATOR_LOG_LEVEL: "info" } },
    { privateKey: secret, keys: { private_key: secret, secretKey: secret, secret_key: secret } },
    { password: secret, auth: { authorization: `Bearer ${secret}` } },
    { headers: { "service-signature": signature, "service-key": "ed25519:public", "service-timestamp": "1700000000000" } },
    { req: { headers: { "custom-signature": signature, authorization: secret } } },
    { request: { req: { headers: { "service-signature": signature } } } },
    { params: { sign: signature, orderly_key: "ed25519:public", timestamp: 1 } },
    { frame: { params: { sign: signature } } },
    { signature },
    { claims: [{ secret }, { secret }] },
  ];
}

function logEverything(logger: ReturnType<typeof createLogger>, secret: string, signature: string): number {
  let lines = 0;
  for (const level of LEVELS) {
    for (const obj of secretBearingObjects(secret, signature)) {
      logger[level](obj, "secret test");
      lines++;
    }
    logger.child({ component: "venue", secret }).info({ signature }, "child line");
    lines++;
  }
  return lines;
}

describe("createLogger", () => {
  it("never writes the secret or a signature, at any level, on any redacted path", () => {
    const { secret } = generateKeyPair();
    const signature = new Signer({ secret, accountId: "0xabc" }).sign("1700000000000");
    const out = collector();
    const logger = createLogger({ level: "trace", destination: out.stream });
    const expected = logEverything(logger, secret, signature);

    const text = out.text();
    const lines = text.trim().split("\n");
    expect(lines.length).toBe(expected); // every line was written, none swallowed
    expect(text).not.toContain(secret);
    expect(text).not.toContain(signature);
    expect(text).toContain(REDACTED);
    // Harmless neighbours survive: redaction is by field, not by wiping whole objects.
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const headerLine = parsed.find((l) => (l.headers as Record<string, string> | undefined)?.["service-key"] !== undefined);
    expect(headerLine?.headers).toEqual({
      "service-signature": REDACTED,
      "service-key": "ed25519:public",
      "service-timestamp": "1700000000000",
    });
    const envLine = parsed.find((l) => l.env !== undefined);
    expect(envLine?.env).toEqual({ LIQUIDATOR_SECRET: REDACTED, LIQUIDATOR_LOG_LEVEL: "info" });
    const paramsLine = parsed.find((l) => l.params !== undefined);
    expect(paramsLine?.params).toEqual({ sign: REDACTED, orderly_key: "ed25519:public", timestamp: 1 });
    // JSON lines: string level, the service name, constant message, ISO time.
    expect(parsed[0]).toMatchObject({ level: "trace", name: "liquidator", msg: "secret test" });
    expect(typeof parsed[0]?.time).toBe("string");
    expect(parsed.some((l) => l.component === "venue" && l.secret === REDACTED && l.signature === REDACTED)).toBe(true);
  });

  it("redacts in pretty mode too", async () => {
    const { secret } = generateKeyPair();
    const signature = new Signer({ secret, accountId: "0xabc" }).sign("1700000000000");
    const out = collector();
    const logger = createLogger({ level: "trace", pretty: true, destination: out.stream });
    const expected = logEverything(logger, secret, signature);
    logger.info("last line");
    await until(() => out.text().includes("last line"), "pretty output");
    const text = out.text();
    expect(() => JSON.parse(text.split("\n")[0] ?? "")).toThrow(); // human-readable, not JSON
    expect(text.match(/secret test/g)?.length).toBe(expected - LEVELS.length);
    expect(text).toContain(REDACTED);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(signature);
  });

  it("writes nothing below its level", () => {
    const out = collector();
    const logger = createLogger({ level: "warn", destination: out.stream });
    logger.info({ a: 1 }, "quiet");
    logger.debug("quieter");
    logger.warn({ a: 2 }, "loud");
    const lines = out
      .text()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(["loud"]);
    const silent = collector();
    createLogger({ level: "silent", destination: silent.stream }).fatal("nothing");
    expect(silent.text()).toBe("");
  });

  it("covers every secret key at depth 0-2 and the headers", () => {
    const paths = redactPathsForTests();
    for (const p of [
      "secret",
      "*.secret",
      "*.*.secret",
      "LIQUIDATOR_SECRET",
      "*.LIQUIDATOR_SECRET",
      "sign",
      "*.sign",
      "*.*.sign",
      "headers.*",
      "*.headers.*",
    ]) {
      expect(paths).toContain(p);
    }
  });
});

describe("prettyByDefault", () => {
  it("is true only for npm start in a terminal with no explicit LIQUIDATOR_LOG_PRETTY", () => {
    expect(prettyByDefault({ npm_lifecycle_event: "start" }, true)).toBe(true);
    expect(prettyByDefault({ npm_lifecycle_event: "start" }, false)).toBe(false);
    expect(prettyByDefault({ npm_lifecycle_event: "start" }, undefined)).toBe(false);
    expect(prettyByDefault({}, true)).toBe(false);
    expect(prettyByDefault({ npm_lifecycle_event: "start", LIQUIDATOR_LOG_PRETTY: "0" }, true)).toBe(false);
  });
});

describe("one key per line", () => {
  it("a child naming its own component replaces its parent's, through any depth, keeping the other bindings and the level", async () => {
    const out = collector();
    const root = createLogger({ level: "debug", destination: out.stream });
    const daemon = root.child({ component: "daemon" });
    const stream = daemon.child({ component: "stream.public", stream: "public" });
    stream.info({ x: 1 }, "a");
    stream.child({ component: "frames" }).debug("b");
    const quiet = root.child({ component: "q" });
    quiet.level = "warn";
    quiet.child({ component: "r" }).info("hidden");
    quiet.child({ component: "r" }).warn("c");
    daemon.info("d");
    await until(() => out.text().split("\n").length >= 5, "four lines");
    const lines = out.text().trim().split("\n");
    for (const line of lines) expect(line.match(/"component":/g)).toHaveLength(1);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ msg: "a", component: "stream.public", stream: "public", x: 1 }),
      expect.objectContaining({ msg: "b", component: "frames", stream: "public", level: "debug" }),
      expect.objectContaining({ msg: "c", component: "r", level: "warn" }),
      expect.objectContaining({ msg: "d", component: "daemon" }),
    ]);
  });

  it("pretty: a record with nested fields is one line", async () => {
    const out = collector();
    const logger = createLogger({ level: "info", pretty: true, destination: out.stream });
    logger.child({ component: "claimer" }).info({ id: 7, fills: [{ symbol: "PERP_ETH_USDC", qty: 1, fee: 2 }] }, "claim accepted");
    await until(() => out.text().includes("\n"), "a line");
    expect(out.text().trim().split("\n")).toHaveLength(1);
  });
});
