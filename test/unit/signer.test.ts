import { randomBytes } from "node:crypto";
import * as ed from "@noble/ed25519";
import { base58 } from "@scure/base";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { KeyFormatError } from "../../src/errors.js";
import { ServerClock } from "../../src/venue/serverClock.js";
import { generateKeyPair, parsePublicKey, parseSecret, Signer, signingMessage } from "../../src/venue/signer.js";

// RFC 8032 §7.1, test 1: an external vector, so the signer is checked against the standard itself.
const RFC_SEED = Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex");
const RFC_PUB = Buffer.from("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "hex");
const RFC_SIG_EMPTY = Buffer.from(
  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  "hex",
);

// A fixed seed 0x01..0x20 and the values this project's formats give for it (computed once with
// @noble/ed25519, which is an independent implementation).
const FIXED_SECRET = base58.encode(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
const FIXED_PUBLIC = "ed25519:9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj";
const FIXED_MESSAGE = "1700000000000GET/v1/admin/orders?user_account=0xabc";
const FIXED_SIGNATURE = "bez0UNJzNLL2VxLFqQLWG-K9-0L7xNPiaLy5J4QJD_UIuE4RH3SqFHvforNodFXZF0ZPLPpAMcSg2SbaUOx7Dw";

const verify = (sig: string, msg: string, pub: string) =>
  ed.verifyAsync(Buffer.from(sig, "base64url"), Buffer.from(msg, "utf8"), parsePublicKey(pub));

describe("Signer", () => {
  test("RFC 8032 test vector 1", () => {
    const signer = new Signer({ secret: base58.encode(RFC_SEED), accountId: "a" });
    expect(signer.publicKey).toBe(`ed25519:${base58.encode(RFC_PUB)}`);
    expect(signer.sign("")).toBe(RFC_SIG_EMPTY.toString("base64url"));
  });

  test("a fixed seed gives a known public key and a known signature", () => {
    const signer = new Signer({ secret: FIXED_SECRET, accountId: "acc" });
    expect(signer.publicKey).toBe(FIXED_PUBLIC);
    const sig = signer.sign(FIXED_MESSAGE);
    expect(sig).toBe(FIXED_SIGNATURE);
    expect(sig).toHaveLength(86);
    expect(sig).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  test("accepts the ed25519: prefix and surrounding whitespace on the secret", () => {
    const signer = new Signer({ secret: `  ed25519:${FIXED_SECRET}\n`, accountId: "acc" });
    expect(signer.publicKey).toBe(FIXED_PUBLIC);
  });

  test("parity with @noble/ed25519 over many random messages", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.string({ unit: "grapheme", maxLength: 300 }),
        async (seed, msg) => {
          const signer = new Signer({ secret: base58.encode(seed), accountId: "x" });
          const expected = await ed.signAsync(Buffer.from(msg, "utf8"), seed);
          expect(signer.sign(msg)).toBe(Buffer.from(expected).toString("base64url"));
          expect(signer.publicKey).toBe(`ed25519:${base58.encode(await ed.getPublicKeyAsync(seed))}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("one byte changed in path, query or body changes the signature", () => {
    const signer = new Signer({ secret: generateKeyPair().secret, accountId: "acc" });
    const ts = 1_700_000_000_000;
    const base = signer.headers("POST", "/v1/liquidation?x=1", '{"liquidation_id":1}', ts)["service-signature"];
    const variants = [
      signer.headers("POST", "/v1/liquidatioN?x=1", '{"liquidation_id":1}', ts),
      signer.headers("POST", "/v1/liquidation?x=2", '{"liquidation_id":1}', ts),
      signer.headers("POST", "/v1/liquidation?x=1", '{"liquidation_id":2}', ts),
      signer.headers("GET", "/v1/liquidation?x=1", '{"liquidation_id":1}', ts),
      signer.headers("POST", "/v1/liquidation?x=1", '{"liquidation_id":1}', ts + 1),
    ];
    for (const h of variants) expect(h["service-signature"]).not.toBe(base);
  });

  test("headers sign timestamp+METHOD+path_with_query+body and verify independently", async () => {
    const pair = generateKeyPair();
    const signer = new Signer({ secret: pair.secret, accountId: "0xacc", headerPrefix: "orderly" });
    const h = signer.headers("GET", "/v1/admin/orders?user_account=u1&size=10", undefined, 1_700_000_000_123);
    expect(Object.keys(h).sort()).toEqual(["orderly-account-id", "orderly-key", "orderly-signature", "orderly-timestamp"]);
    expect(h["orderly-timestamp"]).toBe("1700000000123");
    expect(h["orderly-account-id"]).toBe("0xacc");
    expect(h["orderly-key"]).toBe(pair.publicKey);
    const msg = signingMessage(1_700_000_000_123, "GET", "/v1/admin/orders?user_account=u1&size=10");
    expect(msg).toBe("1700000000123GET/v1/admin/orders?user_account=u1&size=10");
    expect(await verify(h["orderly-signature"]!, msg, pair.publicKey)).toBe(true);
  });

  test("timestamps come from the server clock's offset", () => {
    let local = 1_000_000;
    const clock = new ServerClock({ now: () => local });
    clock.observe(1_060_000, 999_990, 1_000_010); // server is 60 s ahead, 20 ms round trip
    const signer = new Signer({ secret: generateKeyPair().secret, accountId: "a", clock });
    expect(signer.headers("GET", "/x")["service-timestamp"]).toBe("1060000");
    local += 5;
    expect(signer.wsAuthParams().timestamp).toBe(1_060_005);
  });

  test("ws auth signs the timestamp string alone", async () => {
    const pair = generateKeyPair();
    const signer = new Signer({ secret: pair.secret, accountId: "a" });
    const p = signer.wsAuthParams(1_621_910_107_900);
    expect(p.orderly_key).toBe(pair.publicKey);
    expect(await verify(p.sign, "1621910107900", pair.publicKey)).toBe(true);
  });

  test("never exposes the key through JSON or inspect", async () => {
    const pair = generateKeyPair();
    const signer = new Signer({ secret: pair.secret, accountId: "a" });
    const { inspect } = await import("node:util");
    expect(JSON.stringify({ signer })).not.toContain(pair.secret);
    expect(inspect(signer, { depth: 5, showHidden: true })).not.toContain(pair.secret);
  });
});

describe("parseSecret", () => {
  test.each([
    ["not base58", "0OIl+/="],
    ["too short", base58.encode(randomBytes(16))],
    ["too long", base58.encode(randomBytes(64))],
    ["empty", ""],
  ])("rejects %s without echoing the input", (_name, input) => {
    let caught: unknown;
    try {
      parseSecret(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KeyFormatError);
    if (input.length > 0) expect((caught as Error).message).not.toContain(input);
  });
});

describe("ServerClock", () => {
  test("prefers the tightest round trip, refreshes when the best sample is old", () => {
    let local = 0;
    const clock = new ServerClock({ now: () => local });
    clock.observe(10_100, 0, 200); // offset 10_000, rtt 200
    expect(clock.offsetMs).toBe(10_000);
    clock.observe(20_000, 1_000, 1_500); // looser (rtt 500): ignored
    expect(clock.offsetMs).toBe(10_000);
    clock.observe(12_005, 2_000, 2_010); // tighter: offset 10_000
    expect(clock.offsetMs).toBe(10_000);
    clock.observe(90_000, 70_000, 71_000); // loose but the best sample is > 60 s old: taken
    expect(clock.offsetMs).toBe(19_500);
    local = 71_000;
    expect(clock.now()).toBe(90_500);
  });

  test("ignores nonsense samples", () => {
    const clock = new ServerClock({ now: () => 0 });
    clock.observe(Number.NaN, 0, 1);
    clock.observe(-5, 0, 1);
    clock.observe(100, 10, 5);
    expect(clock.offsetMs).toBe(0);
    expect(clock.lastSampleAt).toBe(0);
  });
});
