/**
 * Verification of signed REST requests (docs/protocol.md §2), with @noble/ed25519 so that it is
 * independent of the client's node:crypto signer: a bug in one is not mirrored in the other.
 *
 * Refusals: headers missing or malformed, or a signature that does not verify → -1001; a key not
 * registered for the account, or a timestamp more than 300 s from server time → -1002.
 */
import type { IncomingHttpHeaders } from "node:http";
import { verifyAsync } from "@noble/ed25519";
import { parsePublicKey } from "../venue/signer.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

/** docs/protocol.md §2: requests more than 300 s from server time are refused. */
const SIGNATURE_TOLERANCE_MS = 300_000;

const SIG_BYTES = 64;
const SIG_CHARS = 86; // 64 bytes in base64 without padding

/**
 * The 64 signature bytes from base64url (unpadded or padded) or standard base64 (docs/protocol.md §2);
 * undefined for anything else (mixed alphabets, wrong length, stray characters).
 */
export function decodeSignature(text: string): Uint8Array | undefined {
  let body = text;
  if (body.endsWith("==")) body = body.slice(0, -2);
  if (body.length !== SIG_CHARS) return undefined;
  const url = /^[A-Za-z0-9_-]+$/.test(body);
  const std = /^[A-Za-z0-9+/]+$/.test(body);
  if (!url && !std) return undefined;
  const bytes = Buffer.from(body, url ? "base64url" : "base64");
  return bytes.length === SIG_BYTES ? new Uint8Array(bytes) : undefined;
}

export interface SignatureCheckOptions {
  /** Header name prefix (`service` per docs/protocol.md §A.5; the real venue uses another). */
  headerPrefix: string;
  now: () => number;
  isKeyAuthorized(accountId: string, publicKey: string): boolean;
  toleranceMs?: number;
}

export interface SignedRequest {
  headers: IncomingHttpHeaders;
  method: string;
  /** The request target exactly as received (path and query string). */
  pathWithQuery: string;
  /** The body bytes exactly as received (empty for GET). */
  body: Buffer;
}

export interface Signatory {
  accountId: string;
  publicKey: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return typeof v === "string" ? v : undefined; // a repeated header arrives as an array: malformed
}

export async function checkSignedRequest(req: SignedRequest, options: SignatureCheckOptions): Promise<Checked<Signatory>> {
  const p = options.headerPrefix.toLowerCase();
  const tsText = header(req.headers, `${p}-timestamp`);
  const accountId = header(req.headers, `${p}-account-id`);
  const key = header(req.headers, `${p}-key`);
  const sigText = header(req.headers, `${p}-signature`);
  if (tsText === undefined || accountId === undefined || key === undefined || sigText === undefined) {
    return refused(-1001, `the ${p}-timestamp, ${p}-account-id, ${p}-key and ${p}-signature headers are required`);
  }
  if (!/^\d{1,16}$/.test(tsText)) return refused(-1001, `${p}-timestamp must be milliseconds as a decimal integer`);
  let rawKey: Uint8Array;
  try {
    rawKey = parsePublicKey(key);
  } catch {
    return refused(-1001, `${p}-key must be ed25519:<base58 public key>`);
  }
  const signature = decodeSignature(sigText);
  if (signature === undefined) return refused(-1001, `${p}-signature must be a base64url or base64 ed25519 signature`);

  const tolerance = options.toleranceMs ?? SIGNATURE_TOLERANCE_MS;
  if (Math.abs(options.now() - Number(tsText)) > tolerance) {
    return refused(-1002, `timestamp is more than ${tolerance / 1000} s from server time`);
  }
  if (!options.isKeyAuthorized(accountId, key)) return refused(-1002, "key is not registered for this account");

  // Sign exactly the bytes received: the timestamp header text, method, target, raw body.
  const message = Buffer.concat([Buffer.from(`${tsText}${req.method}${req.pathWithQuery}`, "utf8"), req.body]);
  let valid = false;
  try {
    valid = await verifyAsync(signature, new Uint8Array(message), rawKey);
  } catch {
    valid = false;
  }
  if (!valid) return refused(-1001, "signature does not verify");
  return ok({ accountId, publicKey: key });
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { SIGNATURE_TOLERANCE_MS as SIGNATURE_TOLERANCE_MS_FOR_TESTS };
