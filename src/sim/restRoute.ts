/** A route of the simulated REST API: method, rate-limit scope, whether it is signed, the handler. */
import type { Signatory } from "./signatureCheck.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

export type Method = "GET" | "POST" | "DELETE";

/** Each scope is one sliding window per IP (public) or per account (signed). */
export type LimitScope =
  | "public"
  | "claims"
  | "admin"
  | "positions"
  | "orders"
  | "account"
  | "clientInfo"
  | "keyInfo"
  | "leverageOne"
  | "leverageSet"
  | "query";

export interface RequestContext {
  search: URLSearchParams;
  body: Buffer;
  receivedAt: number;
  signatory: Signatory | undefined;
  contentType: string | undefined;
  /** The path's last segment for a `{param}` route (decoded). */
  param: string | undefined;
  /** The client's address (public limits count per IP). */
  ip: string;
}

export type Handler = (ctx: RequestContext) => Promise<Checked<unknown>> | Checked<unknown>;

export interface Route {
  method: Method;
  limit: LimitScope;
  signed: boolean;
  handler: Handler;
  /** After a successful handler: true to reset the connection instead of answering (a lost answer). */
  dropAnswer?: () => boolean;
}

/** A POST body: JSON, sent as JSON, with no query string (the venue refuses either). */
export function jsonBody(ctx: RequestContext): Checked<unknown> {
  if (ctx.search.size > 0) return refused(-1004, [...ctx.search.keys()][0] as string);
  if (!/^application\/json\b/i.test(ctx.contentType ?? "")) return refused(-1005, "Content-Type must be application/json");
  try {
    return ok(JSON.parse(ctx.body.toString("utf8")) as unknown);
  } catch {
    return refused(-1005, "body is not valid JSON");
  }
}
