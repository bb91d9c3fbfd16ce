/**
 * `liquidator orders`: the admin order listing (docs/protocol.md §A.4.4). Every filter is a flag and every value
 * is checked here, before any request: a refused query costs the venue's rate limit for nothing.
 */
import { parseArgs } from "node:util";
import { SYMBOL_PATTERN } from "../config/schema.js";
import { UsageError } from "../errors.js";
import { collectPages, pageCount } from "../venue/rest.js";
import {
  ADMIN_ORDER_STATUSES,
  ADMIN_ORDER_TYPES,
  ADMIN_ORDERS_MAX_SIZE,
  type AdminOrderRow,
  type AdminOrdersQuery,
  ORDER_SIDES,
  ORDER_SORTS,
} from "../venue/restSchemas.js";
import { skippedRowsOf } from "../venue/tolerantRows.js";
import type { Command } from "./command.js";
import { withVenue } from "./openVenue.js";
import { type Column, isoTime, OUTPUT_OPTIONS, outputFormat, render } from "./output.js";

const USAGE = `usage: liquidator orders (--user-account ID | --user-address ADDR) [filters] [--all] [--json | --csv]

Orders of one user, newest first unless --sort-by says otherwise (admin listing, signed).

  --user-account ID      target user account    } exactly one; with the embedded simulated venue
  --user-address ADDR    target user address    } the default is its first seeded user
  --symbol SYMBOL        PERP_<BASE>_<QUOTE>
  --side SIDE            ${ORDER_SIDES.join(" | ")}
  --order-type TYPE      ${ADMIN_ORDER_TYPES.join(" | ")}
  --status STATUS        ${ADMIN_ORDER_STATUSES.join(" | ")}
  --order-tag TAG
  --start-t MS --end-t MS                 created between (13-digit ms timestamps)
  --update-start-t MS --update-end-t MS   updated between (13-digit ms timestamps)
  --sort-by ORDER        ${ORDER_SORTS.join(" | ")}
  --page N               page to show (from 1)
  --size N               rows per page, at most ${ADMIN_ORDERS_MAX_SIZE}
  --all                  every page (one request per page, rate limited)
  --config FILE          config file (default: LIQUIDATOR_CONFIG, else built-in defaults = simulated venue)
  --json | --csv         machine-readable output (times in ms)
  -h, --help             this text
`;

const FLAG_OPTIONS = {
  "user-account": { type: "string" },
  "user-address": { type: "string" },
  symbol: { type: "string" },
  side: { type: "string" },
  "order-type": { type: "string" },
  status: { type: "string" },
  "order-tag": { type: "string" },
  "start-t": { type: "string" },
  "end-t": { type: "string" },
  "update-start-t": { type: "string" },
  "update-end-t": { type: "string" },
  "sort-by": { type: "string" },
  page: { type: "string" },
  size: { type: "string" },
  all: { type: "boolean" },
} as const;

type Flags = { [K in keyof typeof FLAG_OPTIONS]?: (typeof FLAG_OPTIONS)[K]["type"] extends "string" ? string : boolean };

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const upper = value.trim().toUpperCase();
  const hit = allowed.find((a) => a === upper);
  if (hit === undefined) throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}; got '${value}'`);
  return hit;
}

function msTime(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{13}$/.test(value)) throw new UsageError(`--${flag} must be a 13-digit millisecond timestamp, got '${value}'`);
  return Number(value);
}

function positiveInt(flag: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new UsageError(`--${flag} must be an integer of at least 1, got '${value}'`);
  const n = Number(value);
  if (n > max) throw new UsageError(`--${flag} is at most ${max} (docs/protocol.md §A.8), got ${n}`);
  return n;
}

function text(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") throw new UsageError(`--${flag} must not be empty`);
  return value;
}

function range(fromFlag: string, from: number | undefined, toFlag: string, to: number | undefined): void {
  if (from !== undefined && to !== undefined && from > to) throw new UsageError(`--${fromFlag} is after --${toFlag}`);
}

/** Flags → query. The user may be missing here (the simulated venue supplies a default later). */
function ordersQuery(flags: Flags): { query: AdminOrdersQuery; all: boolean } {
  const q: AdminOrdersQuery = {};
  const set = <K extends keyof AdminOrdersQuery>(k: K, v: AdminOrdersQuery[K] | undefined): void => {
    if (v !== undefined) q[k] = v;
  };
  const account = text("user-account", flags["user-account"]);
  const address = text("user-address", flags["user-address"]);
  if (account !== undefined && address !== undefined) throw new UsageError("give exactly one of --user-account / --user-address, not both");
  set("user_account", account);
  set("user_address", address);
  const symbol = text("symbol", flags.symbol);
  if (symbol !== undefined && !SYMBOL_PATTERN.test(symbol))
    throw new UsageError(`--symbol must look like PERP_<BASE>_<QUOTE>, got '${symbol}'`);
  set("symbol", symbol);
  set("side", oneOf("side", flags.side, ORDER_SIDES));
  set("order_type", oneOf("order-type", flags["order-type"], ADMIN_ORDER_TYPES));
  set("status", oneOf("status", flags.status, ADMIN_ORDER_STATUSES));
  set("order_tag", text("order-tag", flags["order-tag"]));
  set("start_t", msTime("start-t", flags["start-t"]));
  set("end_t", msTime("end-t", flags["end-t"]));
  set("update_start_t", msTime("update-start-t", flags["update-start-t"]));
  set("update_end_t", msTime("update-end-t", flags["update-end-t"]));
  range("start-t", q.start_t, "end-t", q.end_t);
  range("update-start-t", q.update_start_t, "update-end-t", q.update_end_t);
  set("sort_by", oneOf("sort-by", flags["sort-by"], ORDER_SORTS));
  set("page", positiveInt("page", flags.page, 1_000_000_000));
  set("size", positiveInt("size", flags.size, ADMIN_ORDERS_MAX_SIZE));
  const all = flags.all === true;
  if (all && q.page !== undefined) throw new UsageError("--all fetches every page; drop --page");
  return { query: q, all };
}

type C = Column<AdminOrderRow>;
const time = (key: "created_time" | "updated_time", header: string): C => ({
  key,
  header,
  value: (r) => r[key],
  text: (r) => isoTime(r[key]),
});
/** Every docs/protocol.md §A.2.5 field for JSON / CSV; the table shows the ones a person scans for. */
const ORDER_COLUMNS: C[] = [
  { key: "order_id", value: (r) => r.order_id },
  time("created_time", "created"),
  time("updated_time", "updated"),
  { key: "symbol", value: (r) => r.symbol },
  { key: "side", value: (r) => r.side },
  { key: "type", value: (r) => r.type },
  { key: "status", value: (r) => r.status },
  { key: "price", value: (r) => r.price },
  { key: "quantity", header: "qty", value: (r) => r.quantity },
  { key: "executed_quantity", header: "executed", value: (r) => r.executed_quantity },
  { key: "average_executed_price", header: "avg_price", value: (r) => r.average_executed_price },
  { key: "total_fee", header: "fee", value: (r) => r.total_fee },
  { key: "fee_asset", value: (r) => r.fee_asset, table: false },
  { key: "realized_pnl", header: "pnl", value: (r) => r.realized_pnl },
  { key: "order_tag", header: "tag", value: (r) => r.order_tag },
  { key: "margin_mode", value: (r) => r.margin_mode, table: false },
  { key: "user_id", value: (r) => r.user_id, table: false },
  { key: "amount", value: (r) => r.amount, table: false },
  { key: "total_executed_quantity", value: (r) => r.total_executed_quantity, table: false },
  { key: "visible_quantity", value: (r) => r.visible_quantity, table: false },
  { key: "client_order_id", value: (r) => r.client_order_id, table: false },
  { key: "visible", value: (r) => r.visible, table: false },
  { key: "executed", value: (r) => r.executed, table: false },
  { key: "reduce_only", value: (r) => r.reduce_only, table: false },
];

/** Rows of the answer that could not be read are left out: said, never a silent gap. */
function leftOut(n: number): string {
  return n > 0 ? `; ${n} row(s) could not be read and are not shown` : "";
}

export const orders: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { ...FLAG_OPTIONS, config: { type: "string" }, ...OUTPUT_OPTIONS, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const format = outputFormat(values);
  const { query, all } = ordersQuery(values);

  return withVenue(values.config, io, async (venue) => {
    if (query.user_account === undefined && query.user_address === undefined) {
      const first = venue.simulated ? venue.orderUsers[0] : undefined;
      if (first === undefined) throw new UsageError("give exactly one of --user-account ID / --user-address ADDR");
      query.user_account = first;
      io.stderr.write(`liquidator orders: no --user-account / --user-address given; showing the simulated venue's seeded user ${first}\n`);
    }
    const signal = io.signal;
    if (all) {
      // Largest pages mean fewest requests under the admin-orders limit (docs/protocol.md §4: 10/s).
      const size = query.size ?? ADMIN_ORDERS_MAX_SIZE;
      let pages = 0;
      let total = 0;
      let unread = 0;
      const rows = await collectPages(async (page) => {
        const res = await venue.rest.adminOrders({ ...query, page, size }, { signal });
        pages++;
        unread += skippedRowsOf(res).length;
        if (page === 1) total = res.meta.total;
        return res;
      });
      io.stdout.write(render(format, ORDER_COLUMNS, rows));
      io.stderr.write(`${rows.length} orders in ${pages} page(s); the venue reports ${total} in total${leftOut(unread)}\n`);
    } else {
      const res = await venue.rest.adminOrders(query, { signal });
      io.stdout.write(render(format, ORDER_COLUMNS, res.rows));
      const { total, records_per_page: perPage, current_page: page } = res.meta;
      const more = page < pageCount(res.meta) ? "; --all fetches every page" : "";
      io.stderr.write(
        `page ${page} of ${pageCount(res.meta)} (${perPage} per page, ${total} orders)${more}${leftOut(skippedRowsOf(res).length)}\n`,
      );
    }
    return 0;
  });
};
