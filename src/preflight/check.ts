/**
 * What a preflight check is (INTERFACE "Third wave": `liquidator preflight`): a small function that
 * asks the venue one thing the daemon will rely on and says `pass`, `warn` or `fail`, what it saw
 * and how to fix it. What it observed (types, codes, latencies) goes to `observed` for `--json`.
 */
import type { VenueConnection } from "../app/venueConnection.js";
import type { LoadedConfig } from "../config/loadConfig.js";
import type { SymbolTable } from "../engine/symbolInfo.js";
import type { OrderApi } from "../venue/orderApi.js";
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
  /** Timing overrides (tests). */
  streamTimeoutMs: number;
}

export type Check = (ctx: PreflightContext) => Promise<Omit<CheckResult, "name">>;

export const pass = (detail: string, hint = ""): Omit<CheckResult, "name"> => ({ status: "pass", detail, hint });
export const warn = (detail: string, hint: string): Omit<CheckResult, "name"> => ({ status: "warn", detail, hint });
export const fail = (detail: string, hint: string): Omit<CheckResult, "name"> => ({ status: "fail", detail, hint });

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
