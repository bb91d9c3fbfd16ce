/**
 * Keys and request signing (docs/protocol.md §2). The hot path signs with a node:crypto KeyObject built
 * once (~20 µs a signature); @noble/ed25519 is used only where an independent implementation matters
 * (the simulator's verification and the parity tests).
 */
import { createPrivateKey, createPublicKey, sign as cryptoSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import { base58 } from "@scure/base";
import { KeyFormatError } from "../errors.js";
import { ServerClock } from "./serverClock.js";

const KEY_PREFIX = "ed25519:";
// DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * Parse a secret: base58 of the 32-byte seed, with an optional `ed25519:` prefix. Never echoes it.
 * Some clients write a 64-byte secret, the seed followed by its public key (docs/protocol.md §9): the seed
 * is used, once its second half is checked to be the seed's public key (a pasted pair of two
 * different keys would otherwise sign with a key the venue does not know).
 */
export function parseSecret(text: string): Uint8Array {
  let s = text.trim();
  if (s.startsWith(KEY_PREFIX)) s = s.slice(KEY_PREFIX.length);
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(s);
  } catch {
    throw new KeyFormatError("secret is not valid base58 (expected the 32-byte ed25519 seed, base58-encoded)");
  }
  if (bytes.length === 64) {
    const seed = bytes.slice(0, 32);
    const given = bytes.subarray(32);
    if (!Buffer.from(rawPublicKey(privateKeyFromSeed(seed))).equals(Buffer.from(given))) {
      throw new KeyFormatError(
        "secret decodes to 64 bytes but its last 32 are not the public key of its first 32 (expected a 32-byte ed25519 seed, or the seed followed by its own public key)",
      );
    }
    return seed;
  }
  if (bytes.length !== 32) {
    throw new KeyFormatError(
      `secret decodes to ${bytes.length} bytes, expected a 32-byte ed25519 seed (or 64: the seed and its public key)`,
    );
  }
  return bytes;
}

/** Parse a public key string `ed25519:<base58 32 bytes>` (prefix optional) into raw bytes. */
export function parsePublicKey(text: string): Uint8Array {
  const s = text.startsWith(KEY_PREFIX) ? text.slice(KEY_PREFIX.length) : text;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(s);
  } catch {
    throw new KeyFormatError("public key is not valid base58");
  }
  if (bytes.length !== 32) throw new KeyFormatError(`public key decodes to ${bytes.length} bytes, expected 32`);
  return bytes;
}

/** The venue's public key string for raw key bytes. */
export function formatPublicKey(raw: Uint8Array): string {
  return KEY_PREFIX + base58.encode(raw);
}

export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

function rawPublicKey(privateKey: KeyObject): Uint8Array {
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  return Buffer.from(jwk.x as string, "base64url");
}

/** The venue's public key string of a base58 secret. */
export function publicKeyOf(secret: string): string {
  return formatPublicKey(rawPublicKey(privateKeyFromSeed(parseSecret(secret))));
}

/** A new key pair in the venue's formats (secret: base58 seed; public: `ed25519:` + base58). */
export function generateKeyPair(): { secret: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const seed = Buffer.from(jwk.d as string, "base64url");
  return { secret: base58.encode(seed), publicKey: formatPublicKey(Buffer.from(jwk.x as string, "base64url")) };
}

/** Message to sign: timestamp + METHOD + path_with_query + body, no separators (docs/protocol.md §2). */
export function signingMessage(timestamp: number, method: string, pathWithQuery: string, body = ""): string {
  return `${timestamp}${method}${pathWithQuery}${body}`;
}

export interface SignerOptions {
  /** Base58 seed, optionally `ed25519:`-prefixed. */
  secret: string;
  accountId: string;
  /** Header name prefix; `service` per docs/protocol.md §A.5, configurable for the real venue. */
  headerPrefix?: string;
  /** Source of server time for timestamps; a fresh clock with zero offset when omitted. */
  clock?: ServerClock;
}

export type SignedHeaders = Record<string, string>;

export class Signer {
  readonly publicKey: string;
  readonly accountId: string;
  readonly clock: ServerClock;
  readonly #key: KeyObject;
  readonly #hTimestamp: string;
  readonly #hAccount: string;
  readonly #hKey: string;
  readonly #hSignature: string;

  constructor(options: SignerOptions) {
    this.#key = privateKeyFromSeed(parseSecret(options.secret));
    this.publicKey = formatPublicKey(rawPublicKey(this.#key));
    this.accountId = options.accountId;
    this.clock = options.clock ?? new ServerClock();
    const prefix = options.headerPrefix ?? "service";
    this.#hTimestamp = `${prefix}-timestamp`;
    this.#hAccount = `${prefix}-account-id`;
    this.#hKey = `${prefix}-key`;
    this.#hSignature = `${prefix}-signature`;
  }

  /** ed25519 signature of a UTF-8 message, base64url without padding (86 chars). */
  sign(message: string): string {
    return cryptoSign(null, Buffer.from(message, "utf8"), this.#key).toString("base64url");
  }

  /**
   * The four auth headers for one request. `pathWithQuery` and `body` must be the exact strings that
   * will be sent: build them once and pass the same strings to the transport.
   */
  headers(method: string, pathWithQuery: string, body?: string, timestamp = this.clock.now()): SignedHeaders {
    const ts = Math.trunc(timestamp);
    return {
      [this.#hTimestamp]: String(ts),
      [this.#hAccount]: this.accountId,
      [this.#hKey]: this.publicKey,
      [this.#hSignature]: this.sign(signingMessage(ts, method, pathWithQuery, body)),
    };
  }

  /**
   * The same four headers as a flat `[name, value, name, value, ...]` list, the form undici takes
   * without walking an object's keys: the names and the two constant values come from fields set
   * once, so a claim builds one small array. Same signing rules as `headers`.
   */
  headerList(method: string, pathWithQuery: string, body?: string, timestamp = this.clock.now()): string[] {
    const ts = Math.trunc(timestamp);
    const signature = this.sign(signingMessage(ts, method, pathWithQuery, body));
    return [this.#hTimestamp, String(ts), this.#hAccount, this.accountId, this.#hKey, this.publicKey, this.#hSignature, signature];
  }

  /** The private stream's auth frame params: `sign` is the signature of the timestamp alone. */
  wsAuthParams(timestamp = this.clock.now()): { orderly_key: string; sign: string; timestamp: number } {
    const ts = Math.trunc(timestamp);
    return { orderly_key: this.publicKey, sign: this.sign(String(ts)), timestamp: ts };
  }

  /** Never let the key material reach a log through JSON.stringify or util.inspect. */
  toJSON(): { publicKey: string; accountId: string } {
    return { publicKey: this.publicKey, accountId: this.accountId };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `Signer { publicKey: '${this.publicKey}', accountId: '${this.accountId}' }`;
  }
}
