import { describe, expect, it } from "vitest";
import { checkSignedRequest, decodeSignature, SIGNATURE_TOLERANCE_MS_FOR_TESTS, type SignedRequest } from "../../src/sim/signatureCheck.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";

const NOW = 1_760_000_000_000;
const ACCOUNT = "0xabc";

function setup(prefix = "service") {
  const key = generateKeyPair();
  const signer = new Signer({ secret: key.secret, accountId: ACCOUNT, headerPrefix: prefix });
  const registered = new Set([`${ACCOUNT}|${key.publicKey}`]);
  const options = { headerPrefix: prefix, now: () => NOW, isKeyAuthorized: (a: string, k: string) => registered.has(`${a}|${k}`) };
  return { signer, options, key };
}

function request(signer: Signer, body = '{"liquidation_id":1}', ts = NOW, path = "/v1/liquidation"): SignedRequest {
  return { headers: signer.headers("POST", path, body, ts), method: "POST", pathWithQuery: path, body: Buffer.from(body) };
}

async function code(req: SignedRequest, options: Parameters<typeof checkSignedRequest>[1]): Promise<number> {
  const r = await checkSignedRequest(req, options);
  return r.ok ? 0 : r.refusal.code;
}

describe("decodeSignature: base64url (unpadded, padded) and standard base64", () => {
  const bytes = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37 + 250) % 256));
  it.each([
    ["base64url unpadded", bytes.toString("base64url")],
    ["base64url padded", `${bytes.toString("base64url")}==`],
    ["standard base64 padded", bytes.toString("base64")],
    ["standard base64 unpadded", bytes.toString("base64").replace(/=+$/, "")],
  ])("%s", (_name, text) => {
    expect(Buffer.from(decodeSignature(text) ?? [])).toEqual(bytes);
  });

  it("the test bytes exercise both alphabets' special characters", () => {
    expect(bytes.toString("base64url")).toMatch(/[-_]/);
    expect(bytes.toString("base64")).toMatch(/[+/]/);
  });

  it.each([
    ["empty", ""],
    ["too short", "AAAA"],
    ["63 bytes", Buffer.alloc(63).toString("base64url")],
    ["65 bytes", Buffer.alloc(65).toString("base64url")],
    ["mixed alphabets", `${"A".repeat(84)}-+`],
    ["stray character", `${"A".repeat(85)}!`],
    ["single pad", `${"A".repeat(86)}=`],
  ])("refuses %s", (_name, text) => {
    expect(decodeSignature(text)).toBeUndefined();
  });
});

describe("checkSignedRequest (docs/protocol.md §2)", () => {
  it("accepts a request signed by the project's node:crypto Signer (noble verifies it)", async () => {
    const { signer, options } = setup();
    const r = await checkSignedRequest(request(signer), options);
    expect(r.ok && r.value).toEqual({ accountId: ACCOUNT, publicKey: signer.publicKey });
  });

  it("accepts padded base64url and standard base64 signatures", async () => {
    const { signer, options } = setup();
    const req = request(signer);
    const sig = req.headers["service-signature"] as string;
    const std = Buffer.from(sig, "base64url").toString("base64");
    expect(await code({ ...req, headers: { ...req.headers, "service-signature": `${sig}==` } }, options)).toBe(0);
    expect(await code({ ...req, headers: { ...req.headers, "service-signature": std } }, options)).toBe(0);
  });

  it.each([
    ["tampered body", (r: SignedRequest) => ({ ...r, body: Buffer.from('{"liquidation_id":2}') }), -1001],
    ["tampered path", (r: SignedRequest) => ({ ...r, pathWithQuery: "/v1/liquidation?x=1" }), -1001],
    ["tampered method", (r: SignedRequest) => ({ ...r, method: "PUT" }), -1001],
    [
      "signature of another message",
      (r: SignedRequest) => ({ ...r, headers: { ...r.headers, "service-signature": Buffer.alloc(64, 7).toString("base64url") } }),
      -1001,
    ],
    ["signature not base64", (r: SignedRequest) => ({ ...r, headers: { ...r.headers, "service-signature": "not a signature" } }), -1001],
    ["key not ed25519 base58", (r: SignedRequest) => ({ ...r, headers: { ...r.headers, "service-key": "ed25519:0OIl" } }), -1001],
    ["timestamp not digits", (r: SignedRequest) => ({ ...r, headers: { ...r.headers, "service-timestamp": "12.5" } }), -1001],
    ["missing signature header", (r: SignedRequest) => ({ ...r, headers: { ...r.headers, "service-signature": undefined } }), -1001],
    ["missing account header", (r: SignedRequest) => ({ ...r, headers: { ...r.headers, "service-account-id": undefined } }), -1001],
    ["other account", (r: SignedRequest) => ({ ...r, headers: { ...r.headers, "service-account-id": "0xdef" } }), -1002],
  ])("%s → %s", async (_name, tamper, expected) => {
    const { signer, options } = setup();
    expect(await code(tamper(request(signer)), options)).toBe(expected);
  });

  it("an unregistered key is -1002, even with a valid signature", async () => {
    const { options } = setup();
    const stranger = new Signer({ secret: generateKeyPair().secret, accountId: ACCOUNT });
    expect(await code(request(stranger), options)).toBe(-1002);
  });

  it.each([
    ["300 s behind", -SIGNATURE_TOLERANCE_MS_FOR_TESTS, 0],
    ["300 s ahead", SIGNATURE_TOLERANCE_MS_FOR_TESTS, 0],
    ["300.001 s behind", -SIGNATURE_TOLERANCE_MS_FOR_TESTS - 1, -1002],
    ["300.001 s ahead", SIGNATURE_TOLERANCE_MS_FOR_TESTS + 1, -1002],
    ["an hour behind", -3_600_000, -1002],
  ])("timestamp %s → %s", async (_name, skew, expected) => {
    const { signer, options } = setup();
    expect(await code(request(signer, "{}", NOW + skew), options)).toBe(expected);
  });

  it("reads headers with the configured prefix", async () => {
    const { signer, options } = setup("orderly");
    expect(Object.keys(signer.headers("GET", "/x"))).toContain("orderly-signature");
    const req = {
      headers: signer.headers("GET", "/v1/admin/orders?user_account=u", undefined, NOW),
      method: "GET",
      pathWithQuery: "/v1/admin/orders?user_account=u",
      body: Buffer.alloc(0),
    };
    expect(await code(req, options)).toBe(0);
    expect(await code(req, { ...options, headerPrefix: "service" })).toBe(-1001);
  });
});
