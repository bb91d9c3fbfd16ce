/**
 * GET /v1/client/key_info (docs/protocol.md §8): the account's keys with their scope and expiry,
 * optionally filtered by `key_status`. Limit 10 per 60 s (restServer.ts counts them).
 */
import { DEFAULT_KEY_SCOPE, type SimAccount } from "./accounts.js";
import { readParams } from "./queryParams.js";
import type { Route } from "./restRoute.js";
import type { Signatory } from "./signatureCheck.js";
import type { VenueCore } from "./venueCore.js";
import { ok, refused } from "./venueRefusal.js";

/** A key with no expiry set expires this long after the answer (the venue allows at most 365 days). */
const DEFAULT_LIFETIME_MS = 300 * 86_400_000;
const STATUSES = new Set(["ACTIVE", "REMOVING", "REMOVED"]);

export function keyInfoRoute(core: VenueCore): [string, Route] {
  return [
    "/v1/client/key_info",
    {
      method: "GET",
      limit: "keyInfo",
      signed: true,
      handler: (ctx) => {
        const p = readParams(ctx.search, ["key_status"]);
        if (!p.ok) return p;
        const status = p.value.get("key_status");
        if (status !== undefined && !STATUSES.has(status)) return refused(-1005, `key_status ${status}`);
        const account = core.accounts.get((ctx.signatory as Signatory).accountId) as SimAccount;
        const now = core.now();
        // Every registered key is active (a revoked one is forgotten): REMOVING/REMOVED list nothing.
        const rows =
          status === undefined || status === "ACTIVE"
            ? [...account.keys].map((key) => {
                const info = account.keyInfo.get(key);
                return {
                  orderly_key: key,
                  scope: info?.scope ?? DEFAULT_KEY_SCOPE,
                  expiration: info?.expiresAt ?? now + DEFAULT_LIFETIME_MS,
                  key_status: "ACTIVE",
                  ...(info?.ipRestriction !== undefined
                    ? { ip_restriction_status: info.ipRestriction.status, ip_restriction_list: info.ipRestriction.list }
                    : {}),
                };
              })
            : [];
        return ok({ rows });
      },
    },
  ];
}
