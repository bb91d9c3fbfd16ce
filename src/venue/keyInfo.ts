/**
 * The account's keys (docs/protocol.md §8): `GET /v1/client/key_info`, read tolerantly, and what a
 * row means for this process's key. The real venue's answer may carry more fields, spell the
 * expiration as a string or the scope as a list; a row that cannot be read is kept with what could
 * be, so a key the venue lists is never taken for an unlisted one.
 */
import { z } from "zod";
import { VenueError } from "./errors.js";
import { type CallOptions, dataOf, type RestCore } from "./restCore.js";

const KEY_INFO_ENDPOINT = "/v1/client/key_info";

/** What claims and unwind orders need of a key (docs/protocol.md §8). */
const REQUIRED_SCOPE = "trading";

export interface KeyInfoRow {
  /** The public key as the venue writes it (`ed25519:` + base58). */
  orderlyKey: string;
  /** Lower-case scope names. */
  scopes: string[];
  /** Expiration, ms since the epoch; undefined when absent or unreadable. */
  expiresAt: number | undefined;
  /** `ACTIVE`, `REMOVING`, `REMOVED`, … when the venue says. */
  status: string | undefined;
  /** JSON types of the fields as received (preflight reports them). */
  types: { scope: string; expiration: string; key_status: string };
  /**
   * docs/protocol.md §10: `ip_restriction_status` and `ip_restriction_list`, when the row carries them: a key
   * limited to other addresses is refused with -1002 on every signed call.
   */
  ipRestriction?: { status: string | undefined; addresses: string[] } | undefined;
}

const keyInfoSchema = z.object({ rows: z.array(z.unknown()) });

function jsonType(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** Milliseconds from a number or a decimal string; a value that looks like seconds is scaled. */
function readMs(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*\d{1,16}(\.\d+)?\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Before 2001-09-09 in ms is after 2286 in s: a ten-digit value is seconds.
  return n < 1e12 ? n * 1000 : n;
}

/** `ip_restriction_list` as a comma-separated string or an array of strings; addresses trimmed, at most 50 kept. */
function readAddresses(v: unknown): string[] {
  const parts = typeof v === "string" ? v.split(",") : Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
  return parts
    .map((s) => s.trim().slice(0, 64))
    .filter((s) => s !== "")
    .slice(0, 50);
}

function readScopes(v: unknown): string[] {
  const parts = typeof v === "string" ? v.split(",") : Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
  return parts.map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
}

/** One row of the answer; undefined for a row without a readable key. */
function keyInfoRow(raw: unknown): KeyInfoRow | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.orderly_key !== "string") return undefined;
  return {
    orderlyKey: r.orderly_key,
    scopes: readScopes(r.scope),
    expiresAt: readMs(r.expiration),
    status: typeof r.key_status === "string" ? r.key_status.toUpperCase() : undefined,
    types: { scope: jsonType(r.scope), expiration: jsonType(r.expiration), key_status: jsonType(r.key_status) },
    ...(r.ip_restriction_status !== undefined || r.ip_restriction_list !== undefined
      ? {
          ipRestriction: {
            status:
              typeof r.ip_restriction_status === "string" || typeof r.ip_restriction_status === "boolean"
                ? String(r.ip_restriction_status).slice(0, 32)
                : undefined,
            addresses: readAddresses(r.ip_restriction_list),
          },
        }
      : {}),
  };
}

/** GET /v1/client/key_info (signed; the venue allows 10 per 60 s: read at start and hourly). */
export async function readKeyInfo(rest: RestCore, opts: CallOptions = {}): Promise<KeyInfoRow[]> {
  const data = await rest.get(KEY_INFO_ENDPOINT, "account_reads", "", keyInfoSchema, true, opts).then(dataOf);
  return data.rows.map(keyInfoRow).filter((r): r is KeyInfoRow => r !== undefined);
}

/** True when the venue has no such route (a venue or a version without it): a warning, not a failure. */
export function isMissingRoute(err: unknown): boolean {
  return err instanceof VenueError && err.status === 404;
}

export type KeyAssessment =
  | { verdict: "ok"; row: KeyInfoRow }
  /** Usable now, but it says something the operator should act on (expiry near, no expiry given). */
  | { verdict: "warn"; row: KeyInfoRow | undefined; problem: string }
  /** Claims and orders cannot work with this key. */
  | { verdict: "fail"; row: KeyInfoRow; problem: string };

const DAY_MS = 86_400_000;
/** docs/runbook.md "LiquidatorKeyExpiringSoon": the alert's horizon. */
const EXPIRY_WARNING_MS = 14 * DAY_MS;

/** What the venue's rows say about the key `publicKey` at `now`. */
export function assessKey(rows: readonly KeyInfoRow[], publicKey: string, now: number): KeyAssessment {
  const row = rows.find((r) => r.orderlyKey === publicKey);
  if (row === undefined) return { verdict: "warn", row: undefined, problem: `the venue lists ${rows.length} key(s), not this one` };
  if (row.status !== undefined && row.status !== "ACTIVE") return { verdict: "fail", row, problem: `the key's status is ${row.status}` };
  if (row.expiresAt !== undefined && row.expiresAt <= now) {
    return { verdict: "fail", row, problem: `the key expired at ${new Date(row.expiresAt).toISOString()}` };
  }
  if (!row.scopes.includes(REQUIRED_SCOPE)) {
    return {
      verdict: "fail",
      row,
      problem: `the key's scope is '${row.scopes.join(",")}', without '${REQUIRED_SCOPE}' (claims and orders need it)`,
    };
  }
  if (row.expiresAt === undefined) return { verdict: "warn", row, problem: "the venue gave no readable expiration" };
  if (row.expiresAt - now <= EXPIRY_WARNING_MS) {
    const days = ((row.expiresAt - now) / DAY_MS).toFixed(1);
    return { verdict: "warn", row, problem: `the key expires in ${days} days (${new Date(row.expiresAt).toISOString()})` };
  }
  return { verdict: "ok", row };
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { keyInfoRow as keyInfoRowForTests };
