/**
 * Untrusted input to the simulator's streams: the parsers never throw, and a socket flooded with
 * arbitrary frames gets one answer per frame and keeps serving.
 */
import fc from "fast-check";
import { afterEach, describe, expect, test } from "vitest";
import { decodeSignature } from "../../src/sim/signatureCheck.js";
import { verifyWsAuth } from "../../src/sim/streamAuth.js";
import { matchStreamPath, parseClientFrame } from "../../src/sim/streamProtocol.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { type Harness, startHarness, TestClient, until } from "./simStreamsHarness.js";

let h: Harness | undefined;
let client: TestClient | undefined;

afterEach(async () => {
  client?.close();
  await h?.close();
  h = undefined;
  client = undefined;
});

describe("parsers on arbitrary input", () => {
  test("parseClientFrame and matchStreamPath never throw", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const frame = parseClientFrame(text);
          expect(typeof frame.kind).toBe("string");
          matchStreamPath(text);
          matchStreamPath(`/ws/stream/${text}`);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  test("verifyWsAuth never throws and never accepts what was not signed by an authorized key", async () => {
    const pair = generateKeyPair();
    const signer = new Signer({ secret: pair.secret, accountId: "a" });
    const ctx = { accountId: "a", now: Date.now(), isKeyAuthorized: (_a: string, k: string) => k === pair.publicKey };
    const good = signer.wsAuthParams(ctx.now);
    expect(await verifyWsAuth(good, ctx)).toEqual({ ok: true, publicKey: pair.publicKey });
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            orderly_key: fc.oneof(fc.constant(good.orderly_key), fc.string(), fc.integer()),
            sign: fc.oneof(fc.base64String({ minLength: 88, maxLength: 88 }), fc.string(), fc.constant(null)),
            timestamp: fc.oneof(fc.constant(good.timestamp), fc.integer(), fc.double(), fc.string()),
          },
          { requiredKeys: [] },
        ),
        async (params) => {
          const result = await verifyWsAuth(params, ctx);
          if (result.ok) expect(params).toMatchObject({ sign: good.sign });
        },
      ),
      { numRuns: 500 },
    );
  });

  test("decodeSignature accepts the three encodings of one signature and nothing of the wrong length", () => {
    const signer = new Signer({ secret: generateKeyPair().secret, accountId: "a" });
    const sig = signer.sign("123");
    const raw = Buffer.from(sig, "base64url");
    for (const text of [sig, `${sig}==`, raw.toString("base64")]) {
      expect(Buffer.from(decodeSignature(text) as Uint8Array)).toEqual(raw);
    }
    expect(decodeSignature(sig.slice(1))).toBeUndefined();
    expect(decodeSignature(`${sig}A`)).toBeUndefined();
    expect(decodeSignature(`${sig}=`)).toBeUndefined();
  });
});

describe("a flood of arbitrary frames over a real socket", () => {
  test("each frame gets at most one answer, the socket stays open and keeps serving", async () => {
    h = await startHarness();
    client = await TestClient.open(`${h.wsBase}/v2/ws/private/stream/acct`);
    const frames = fc.sample(
      fc.oneof(
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc
          .record({
            id: fc.oneof(fc.string(), fc.integer()),
            event: fc.constantFrom("subscribe", "unsubscribe", "auth", "ping", "pong", "x"),
            topic: fc.oneof(fc.string(), fc.constantFrom("position", "liquidation")),
            params: fc.jsonValue(),
          })
          .map((v) => JSON.stringify(v)),
      ),
      { numRuns: 300, seed: 42 },
    );
    for (const f of frames) client.send(f);
    client.send({ id: "last", event: "ping" });
    client.send({ id: "marker", event: "subscribe", topic: "position" });
    // auth frames among them fail and close the socket; otherwise the marker is answered.
    await until(() => client?.closeCode !== undefined || client?.frames.some((f) => f?.id === "marker") === true, "marker or close");
    expect(client.raw.length).toBeLessThanOrEqual(frames.length + 2);
    if (client.closeCode !== undefined) {
      expect(client.closeCode).toBe(1008); // closed by a failed auth, not a crash
      expect(h.streams.stats().authFailures).toBeGreaterThanOrEqual(1);
    } else {
      expect(client.frames.find((f) => f?.id === "marker")).toMatchObject({ errorMsg: "Auth is needed." });
    }
    // The server still accepts and serves.
    const fresh = await TestClient.open(`${h.wsBase}/ws/stream/x`);
    try {
      expect(await fresh.subscribe("liquidation")).toMatchObject({ success: true });
    } finally {
      fresh.close();
    }
  });
});
