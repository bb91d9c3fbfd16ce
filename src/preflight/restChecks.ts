/**
 * The public REST checks: `clock` (skew of the local clock against the venue's envelope time),
 * `rest` (reachability and read latency) and `symbols` (every `/v1/public/info` row through the
 * daemon's own reader, and the JSON types its fields came in).
 */
import { SymbolTable } from "../engine/symbolInfo.js";
import { marksFromFutures, symbolInfoFromRow } from "../venue/mapping.js";
import { VENUE_CLOCK_TOLERANCE_MS } from "../venue/serverClock.js";
import { type Check, elapsedMs, fail, pass, warn } from "./check.js";

/** Beyond this the daemon works (it keeps an offset) but the host's time service is worth a look. */
const SKEW_WARN_MS = 2_000;

export const clockCheck: Check = async (ctx) => {
  const sentAt = Date.now();
  const stamped = await ctx.rest.futuresStamped({ signal: ctx.signal });
  const receivedAt = Date.now();
  if (stamped.venueTs === undefined) {
    ctx.observed.clock = { envelope_timestamp: "absent or unreadable" };
    return fail(
      "the venue's answers carry no readable envelope timestamp",
      "the daemon cannot learn server time: report this venue answer",
    );
  }
  const skewMs = Math.round(stamped.venueTs - (sentAt + receivedAt) / 2);
  ctx.observed.clock = { skew_ms: skewMs, round_trip_ms: receivedAt - sentAt };
  const text = `local clock ${skewMs >= 0 ? "behind" : "ahead of"} the venue by ${Math.abs(skewMs)} ms`;
  if (Math.abs(skewMs) > VENUE_CLOCK_TOLERANCE_MS) {
    return fail(`${text} (the venue refuses signed requests more than 300 s off)`, "synchronise the host clock (NTP / chrony)");
  }
  // The daemon keeps an offset to the venue's clock: a skew this size costs nothing yet.
  if (Math.abs(skewMs) > SKEW_WARN_MS) return warn(text, "synchronise the host clock (NTP / chrony)", true);
  return pass(text);
};

export const restCheck: Check = async (ctx) => {
  const latencies: number[] = [];
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const futures = await ctx.rest.futures({ signal: ctx.signal });
    latencies.push(elapsedMs(started));
    rows = futures.rows.length;
    ctx.marks = new Map(marksFromFutures(futures.rows).map((m) => [m.symbol, m.price]));
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const median = sorted[1] as number;
  ctx.observed.rest = { base_url: ctx.venue.baseUrl, read_latency_ms: latencies, futures_rows: rows };
  const text = `${ctx.venue.baseUrl} answers; GET /v1/public/futures median ${median} ms (${latencies.join(", ")}), ${rows} rows`;
  if (rows === 0) return fail(text, "the venue lists no futures: check venue.base_url");
  if (median > 1000) return warn(text, "reads are slow: run closer to the venue", true);
  return pass(text);
};

/** Fields of an info row whose JSON types are reported (the venue has changed some over time). */
const TYPED_FIELDS = [
  "liquidation_tier",
  "liquidator_fee",
  "quote_tick",
  "base_tick",
  "base_min",
  "base_max",
  "min_notional",
  "price_range",
];

function typeOf(v: unknown): string {
  return v === null ? "null" : v === undefined ? "absent" : Array.isArray(v) ? "array" : typeof v;
}

export const symbolsCheck: Check = async (ctx) => {
  const info = await ctx.rest.info({ signal: ctx.signal });
  const types: Record<string, Record<string, number>> = {};
  for (const row of info.rows) {
    for (const field of TYPED_FIELDS) {
      const t = typeOf((row as Record<string, unknown> | null)?.[field]);
      const seen = types[field] ?? {};
      seen[t] = (seen[t] ?? 0) + 1;
      types[field] = seen;
    }
  }
  // The daemon's own reader: what it will claim on is what this table holds.
  const { table, rejected } = SymbolTable.fromUntrusted(info.rows.map(symbolInfoFromRow));
  ctx.symbols = table;
  const usable = table.size;
  const unwindable = [...table.values()].filter((s) => s.orderFilters !== undefined).length;
  ctx.observed.symbols = { rows: info.rows.length, usable, unwindable, field_types: types, rejected: rejected.slice(0, 20) };
  const tiers = Object.entries(types.liquidation_tier ?? {})
    .map(([t, n]) => `${t}×${n}`)
    .join(" ");
  const text = `${info.rows.length} rows, ${usable} usable, ${unwindable} unwindable; liquidation_tier types: ${tiers || "none"}`;
  if (usable === 0) {
    const first = rejected[0];
    return fail(
      `${text}${first ? `; e.g. ${first.symbol}: ${first.problem}` : ""}`,
      "the daemon would claim nothing: attach --json to a bug report",
    );
  }
  if (rejected.length > 0)
    return warn(
      `${text}; ${rejected.length} rejected (first: ${rejected[0]?.symbol}: ${rejected[0]?.problem})`,
      "those symbols are never claimed: attach --json to a bug report",
      true,
    );
  return pass(text);
};
