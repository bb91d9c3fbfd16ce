/**
 * The signed account checks: `key` (scope and expiry from GET /v1/client/key_info, judged as the
 * daemon judges them at start) and `account` (collateral, free collateral, positions, open orders,
 * fee rates, through the daemon's readers).
 */
import { z } from "zod";
import { VenueError } from "../venue/errors.js";
import { assessKey, isMissingRoute, readKeyInfo } from "../venue/keyInfo.js";
import { positionsSchema } from "../venue/restSchemas.js";
import { skippedRowsOf } from "../venue/tolerantRows.js";
import { type Check, fail, pass, secretVar, warn } from "./check.js";

export const keyCheck: Check = async (ctx) => {
  let rows: Awaited<ReturnType<typeof readKeyInfo>>;
  try {
    rows = await readKeyInfo(ctx.rest, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof VenueError && (err.kind === "unauthorized" || err.kind === "bad_signature")) {
      ctx.observed.key = { public_key: ctx.signer.publicKey, refused: err.venueCode };
      return fail(
        `${ctx.signer.publicKey}: every signed call is refused (${err.venueCode}: ${err.message})`,
        `the key is not registered for venue.account_id, has expired, or is limited to other IP addresses (its IP restriction on the venue's site): check the key there, the account id and ${secretVar(ctx)}`,
      );
    }
    if (!isMissingRoute(err)) throw err;
    ctx.observed.key = { key_info: "route missing (HTTP 404)" };
    return warn("the venue has no GET /v1/client/key_info: scope and expiry unknown", "check the key's expiry on the venue's site", true);
  }
  const a = assessKey(rows, ctx.signer.publicKey, Date.now());
  const row = a.row;
  ctx.observed.key = {
    public_key: ctx.signer.publicKey,
    listed_keys: rows.length,
    ...(row !== undefined
      ? {
          scope: row.scopes,
          expiration: row.expiresAt,
          key_status: row.status ?? null,
          field_types: row.types,
          ip_restriction: row.ipRestriction ?? null,
        }
      : { listed: false }),
  };
  // This call got through, so a restriction the key has lets this host's address in.
  const ip = row?.ipRestriction;
  const ipText =
    ip === undefined ? "" : `; IP restriction ${ip.status ?? "?"}${ip.addresses.length > 0 ? ` (${ip.addresses.join(", ")})` : ""}`;
  const expires = row?.expiresAt === undefined ? "no expiry given" : `expires ${new Date(row.expiresAt).toISOString()}`;
  if (a.verdict === "fail") {
    return fail(
      `${ctx.signer.publicKey}: ${a.problem}${ipText}`,
      `register a new key with the trading scope and set ${secretVar(ctx)} to it`,
    );
  }
  if (a.verdict === "warn")
    return warn(`${ctx.signer.publicKey}: ${a.problem}${ipText}`, "renew the key before it expires (docs/runbook.md)", true);
  if (ip !== undefined && restricted(ip))
    return warn(
      `${ctx.signer.publicKey}: scope ${row?.scopes.join(",")}, ${expires}${ipText}`,
      "this host's address is let in; a replica or a restart on another address is refused as unauthorized on every call: list it on the venue's site first",
      true,
    );
  return pass(`${ctx.signer.publicKey}: scope ${row?.scopes.join(",")}, ${expires}${ipText}`);
};

/** Whether a key's IP restriction limits it (the status words are not published: an "off" word or an empty list does not). */
function restricted(ip: { status: string | undefined; addresses: string[] }): boolean {
  const s = ip.status?.trim().toUpperCase();
  if (s !== undefined && ["OFF", "DISABLED", "DISABLE", "FALSE", "0", "NONE", ""].includes(s)) return false;
  return ip.addresses.length > 0;
}

/** The collateral fields the daemon does not read yet: kept loose, reported as found. */
const accountSchema = z.object({ total_collateral_value: z.unknown(), free_collateral: z.unknown(), rows: z.array(z.unknown()) });

export const accountCheck: Check = async (ctx) => {
  const raw = (await ctx.rest.get("/v1/positions", "account_reads", "", accountSchema, true, { signal: ctx.signal })).data;
  const positions = positionsSchema.safeParse(raw);
  const [open, info] = await Promise.all([ctx.orders.openOrders({ signal: ctx.signal }), ctx.orders.clientInfo({ signal: ctx.signal })]);
  ctx.clientInfo = info;
  const held = positions.success ? positions.data.rows.filter((r) => r.position_qty !== 0) : [];
  // A row left out as unreadable is still an open order (the list asked for open ones only).
  const unreadable = skippedRowsOf(open).length;
  const openCount = open.rows.length + unreadable;
  const total = Number(raw.total_collateral_value);
  const free = Number(raw.free_collateral);
  ctx.observed.account = {
    total_collateral: raw.total_collateral_value ?? null,
    free_collateral: raw.free_collateral ?? null,
    collateral_types: { total: typeof raw.total_collateral_value, free: typeof raw.free_collateral },
    positions: held.map((r) => ({ symbol: r.symbol, position_qty: r.position_qty })),
    open_orders: openCount,
    open_orders_unreadable: unreadable,
    taker_fee_bps: info.futures_taker_fee_rate,
    maker_fee_bps: info.futures_maker_fee_rate,
  };
  const text =
    `collateral ${Number.isFinite(total) ? total : "?"}, free ${Number.isFinite(free) ? free : "?"}, ` +
    `${held.length} position(s), ${openCount} open order(s)${unreadable > 0 ? ` (${unreadable} unreadable)` : ""}, fees ${info.futures_taker_fee_rate}/${info.futures_maker_fee_rate} bps taker/maker`;
  if (!positions.success) return fail(`${text}; position rows unreadable by the daemon`, "attach --json to a bug report");
  if (!Number.isFinite(free) || free <= 0) return warn(text, "no free collateral: every claim would be refused for margin", false);
  if (held.length > 0 || openCount > 0) return warn(text, "the daemon takes over these positions and orders: start flat if you can", true);
  return pass(text);
};
