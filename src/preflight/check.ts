/**
 * What a preflight check is (`liquidator preflight`, README "Commands" and "Going live"): a small function that
 * asks the venue one thing the daemon will rely on and says `pass`, `warn` or `fail`, what it saw
 * and how to fix it. What it observed (types, codes, latencies) goes to `observed` for `--json`.
 */
import type { VenueConnection } from "../app/venueConnection.js";
import type { LoadedConfig } from "../config/loadConfig.js";
import type { SecretSource } from "../config/secret.js";
import type { SymbolTable } from "../engine/symbolInfo.js";
import { TimeoutError, TransportError } from "../venue/errors.js";
import type { OrderApi } from "../venue/orderApi.js";
import type { ClientInfo } from "../venue/orderSchemas.js";
import type { RestClient } from "../venue/rest.js";
import type { Signer } from "../venue/signer.js";

export type CheckStatus = "pass" | "warn" | "fail";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  hint: string;
}

export interface PreflightContext {
  loaded: LoadedConfig;
  venue: VenueConnection;
  rest: RestClient;
  orders: OrderApi;
  signer: Signer;
  signal: AbortSignal;
  /** What was observed, by check name (the `venue` object of `--json`). */
  observed: Record<string, unknown>;
  /** The symbol table the `symbols` check built (later checks price their probes on it). */
  symbols?: SymbolTable;
  /** Mark prices from the `rest` check. */
  marks?: Map<string, number>;
  /** `GET /v1/client/info` as the `account` check read it (the `leverage` check reuses it: 10 reads per 60 s). */
  clientInfo?: ClientInfo;
  /** Timing overrides (tests). */
  streamTimeoutMs: number;
}

export type Check = (ctx: PreflightContext) => Promise<Omit<CheckResult, "name">>;

export const pass = (detail: string, hint = ""): Omit<CheckResult, "name"> => ({ status: "pass", detail, hint });
/**
 * A `warn` says whether it is safe to go on (issue #34): `safe` true, the daemon works as it is and
 * the hint is an improvement; false, fix it before going live.
 */
export const warn = (detail: string, hint: string, safe: boolean): Omit<CheckResult, "name"> => ({
  status: "warn",
  detail,
  hint: `${hint}${safe ? " (safe to go on)" : " (not safe to go on until this is fixed)"}`,
});
export const fail = (detail: string, hint: string): Omit<CheckResult, "name"> => ({ status: "fail", detail, hint });

/** The variable the secret came from: what a hint about the key names. */
export function secretVar(ctx: Pick<PreflightContext, "loaded">): SecretSource {
  return ctx.loaded.secretSource ?? "LIQUIDATOR_SECRET";
}

/** `host:port` of a URL, the port spelled out (443 for https/wss, 80 for http/ws). */
export function hostPort(url: string): string {
  try {
    const u = new URL(url);
    const secure = u.protocol === "https:" || u.protocol === "wss:";
    return `${u.hostname}:${u.port === "" ? (secure ? 443 : 80) : u.port}`;
  } catch {
    return url;
  }
}

/** The request never got an answer: the network, not the key or the account, is what failed. */
export function isUnreachable(err: unknown): boolean {
  return err instanceof TimeoutError || (err instanceof TransportError && !err.maybeDelivered);
}

/** The `fail` of a check whose venue could not be reached at `url`. */
export function unreachable(url: string, err: unknown): Omit<CheckResult, "name"> {
  return fail(
    `cannot reach the venue at ${hostPort(url)}: ${errorText(err)}`,
    `the venue cannot be reached from here (nothing is known yet of the key or account): check the network, DNS, a proxy or firewall, and the venue URL`,
  );
}

/** A venue refusal's code, or the error's kind: what a probe reports. */
export function errorCode(err: unknown): number | string {
  const e = err as { venueCode?: unknown; code?: unknown };
  if (typeof e?.venueCode === "number") return e.venueCode;
  return typeof e?.code === "string" ? e.code : "error";
}

/** An error's message, bounded for one output line. */
export function errorText(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.length > 240 ? `${m.slice(0, 240)}…` : m;
}

/** Milliseconds since `started` (performance.now()), rounded to 0.1. */
export function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
