/**
 * Verification of the private stream's auth frame (docs/protocol.md §5): `sign` is the ed25519 signature
 * of the timestamp's decimal string alone, made by a key registered for the stream's account.
 *
 * Verification uses @noble/ed25519, deliberately NOT node:crypto: the daemon signs with node:crypto,
 * so a simulator verifying with the same library could not catch a shared encoding mistake.
 * `verifyAsync` hashes with WebCrypto, so no global of the noble module has to be configured.
 */
import { verifyAsync } from "@noble/ed25519";
import { formatPublicKey, parsePublicKey } from "../venue/signer.js";
// One decoder for REST and stream signatures (base64url unpadded/padded, standard base64: docs/protocol.md §2).
import { decodeSignature } from "./signatureCheck.js";

/** The venue's tolerance for the auth timestamp (docs/protocol.md §2: 300 s). */
const WS_AUTH_TOLERANCE_MS = 300_000;

export type WsAuthFailure =
  | "fault" // the failAuth fault is on
  | "bad_params" // params missing or of the wrong shape
  | "stale_timestamp" // outside ±300 s of server time
  | "bad_key" // orderly_key cannot be parsed
  | "unauthorized" // key not registered for the path's account
  | "bad_signature"; // signature not decodable or does not verify

export type WsAuthResult = { ok: true; publicKey: string } | { ok: false; reason: WsAuthFailure };

export interface WsAuthContext {
  accountId: string;
  now: number;
  isKeyAuthorized(accountId: string, publicKey: string): boolean;
}

/** The timestamp as the decimal string that was signed; null unless a non-negative safe integer. */
function timestampText(value: unknown): string | null {
  if (typeof value === "number") {
    return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  }
  // Lenient: a decimal string carries the same signed text.
  if (typeof value === "string" && /^(?:0|[1-9][0-9]{0,15})$/.test(value) && Number.isSafeInteger(Number(value))) {
    return value;
  }
  return null;
}

/** Check an auth frame's `params` for `ctx.accountId`. Never throws; every failure has a reason. */
export async function verifyWsAuth(params: unknown, ctx: WsAuthContext): Promise<WsAuthResult> {
  if (typeof params !== "object" || params === null) return { ok: false, reason: "bad_params" };
  const p = params as Record<string, unknown>;
  const key = p.orderly_key;
  const sign = p.sign;
  const ts = timestampText(p.timestamp);
  if (typeof key !== "string" || typeof sign !== "string" || ts === null || key.length > 200) {
    return { ok: false, reason: "bad_params" };
  }
  if (Math.abs(ctx.now - Number(ts)) > WS_AUTH_TOLERANCE_MS) return { ok: false, reason: "stale_timestamp" };
  let rawKey: Uint8Array;
  try {
    rawKey = parsePublicKey(key);
  } catch {
    return { ok: false, reason: "bad_key" };
  }
  const publicKey = formatPublicKey(rawKey);
  if (!ctx.isKeyAuthorized(ctx.accountId, publicKey)) return { ok: false, reason: "unauthorized" };
  const signature = decodeSignature(sign);
  if (signature === undefined) return { ok: false, reason: "bad_signature" };
  let valid = false;
  try {
    // zip215: false is RFC 8032 strict, the behaviour of libsodium / node:crypto verifiers.
    valid = await verifyAsync(signature, new TextEncoder().encode(ts), rawKey, { zip215: false });
  } catch {
    valid = false;
  }
  return valid ? { ok: true, publicKey } : { ok: false, reason: "bad_signature" };
}
