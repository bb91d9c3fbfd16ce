/**
 * `POST /v1/public/query` (docs/protocol.md §10, the venue's Public Info API): no key, a JSON body
 * `{type, …}`, a rate-limit pool of its own counted in weights per minute per IP. The simulator
 * answers two types:
 *
 * - `platformPositions` (weight 20): every open position with its `est_liq_price`
 *   (platformPositions.ts), filtered by `symbol`, `broker_id`, `min_notional`, paged by `limit`
 *   (1–5000, default 500) and an opaque `cursor`, newest position first. An answer is a snapshot
 *   cached 5 s per filter (a poll within 5 s sees the same positions); a cursor pages through the
 *   snapshot it came from, for a minute.
 * - `rateLimitStatus` (weight 1): the pool's limit, what is used and left in the current minute.
 *
 * Anything else is -1005; an unknown key of a known type -1004; a request over the pool -1003 (not
 * counted). The pool's size (1,200 a minute) is the simulator's choice: the venue does not publish its own.
 */
import { decimalString, type PlatformPositionRow, platformPositionRows } from "./platformPositions.js";
import type { TraderPopulation } from "./traderPopulation.js";
import type { VenueCore } from "./venueCore.js";
import { SIM_BROKER_ID } from "./venueReads.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

const PLATFORM_POSITIONS_WEIGHT = 20;
const RATE_LIMIT_STATUS_WEIGHT = 1;

export interface PublicQueryOptions {
  /** Weight each IP may spend in any minute (default 1,200). */
  weightPerMinute?: number;
  /** How long an answer is served from its snapshot, ms (default 5,000). */
  cacheMs?: number;
  /** How long a cursor's snapshot is kept, ms (default 60,000). */
  cursorTtlMs?: number;
}

interface Snapshot {
  id: number;
  at: number;
  rows: PlatformPositionRow[];
  totalLong: number;
  totalShort: number;
}

const PLATFORM_KEYS = new Set(["type", "symbol", "broker_id", "min_notional", "limit", "cursor"]);
const WINDOW_MS = 60_000;

export class PublicQuery {
  readonly weightPerMinute: number;
  readonly #core: VenueCore;
  readonly #population: () => TraderPopulation | undefined;
  readonly #cacheMs: number;
  readonly #cursorTtlMs: number;
  /** Per IP: the weights spent, with when, oldest first. */
  readonly #spent = new Map<string, { at: number; weight: number }[]>();
  /** Fresh snapshots by filter, and every snapshot a cursor may still page through by id. */
  readonly #byFilter = new Map<string, Snapshot>();
  readonly #byId = new Map<number, Snapshot>();
  #nextSnapshot = 1;

  constructor(core: VenueCore, population: () => TraderPopulation | undefined, options: PublicQueryOptions = {}) {
    this.#core = core;
    this.#population = population;
    this.weightPerMinute = options.weightPerMinute ?? 1_200;
    this.#cacheMs = options.cacheMs ?? 5_000;
    this.#cursorTtlMs = options.cursorTtlMs ?? 60_000;
    if (!(this.weightPerMinute >= PLATFORM_POSITIONS_WEIGHT && this.#cacheMs >= 0 && this.#cursorTtlMs > 0))
      throw new RangeError("public query options out of range");
  }

  /** One request from `ip` with the parsed JSON `body`. */
  handle(ip: string, body: unknown, now: number): Checked<unknown> {
    if (typeof body !== "object" || body === null || Array.isArray(body)) return refused(-1005, "body must be a JSON object {type, …}");
    const b = body as Record<string, unknown>;
    switch (b.type) {
      case "platformPositions":
        for (const key of Object.keys(b)) if (!PLATFORM_KEYS.has(key)) return refused(-1004, key);
        return this.#charge(ip, PLATFORM_POSITIONS_WEIGHT, now, () => this.#platformPositions(b, now));
      case "rateLimitStatus":
        for (const key of Object.keys(b)) if (key !== "type") return refused(-1004, key);
        return this.#charge(ip, RATE_LIMIT_STATUS_WEIGHT, now, () => ok(this.#status(ip, now)));
      default:
        return refused(-1005, `type must be one of platformPositions, rateLimitStatus; got ${JSON.stringify(b.type)}`);
    }
  }

  /** Spends `weight` of the IP's minute if it has it (a request over the pool spends nothing), then answers. */
  #charge(ip: string, weight: number, now: number, answer: () => Checked<unknown>): Checked<unknown> {
    const used = this.#used(ip, now);
    if (used + weight > this.weightPerMinute) return refused(-1003, `query weight ${used} of ${this.weightPerMinute} a minute used`);
    (this.#spent.get(ip) as { at: number; weight: number }[]).push({ at: now, weight });
    return answer();
  }

  #used(ip: string, now: number): number {
    let list = this.#spent.get(ip);
    if (list === undefined) {
      list = [];
      this.#spent.set(ip, list);
    }
    while (list.length > 0 && (list[0] as { at: number }).at <= now - WINDOW_MS) list.shift();
    return list.reduce((sum, s) => sum + s.weight, 0);
  }

  #status(ip: string, now: number): Record<string, unknown> {
    const used = this.#used(ip, now); // this request's weight included
    const oldest = this.#spent.get(ip)?.[0]?.at ?? now;
    return {
      type: "rateLimitStatus",
      weight_limit: this.weightPerMinute,
      weight_used: used,
      weight_remaining: Math.max(0, this.weightPerMinute - used),
      window_ms: WINDOW_MS,
      reset_in_ms: Math.max(0, oldest + WINDOW_MS - now),
    };
  }

  #platformPositions(b: Record<string, unknown>, now: number): Checked<unknown> {
    const limit = b.limit === undefined ? 500 : b.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 5000)
      return refused(-1005, "limit must be an integer in [1, 5000]");
    let snapshot: Snapshot;
    let offset = 0;
    if (b.cursor !== undefined && b.cursor !== null) {
      const c = typeof b.cursor === "string" ? /^s(\d{1,12})o(\d{1,9})$/.exec(b.cursor) : null;
      if (c === null) return refused(-1005, "cursor is not one this venue gave");
      this.#expireSnapshots(now);
      const found = this.#byId.get(Number(c[1]));
      if (found === undefined) return refused(-1005, "cursor expired: start again without one");
      snapshot = found;
      offset = Number(c[2]);
    } else {
      const filter = this.#filter(b);
      if (!filter.ok) return filter;
      snapshot = this.#snapshot(filter.value, now);
    }
    const page = snapshot.rows.slice(offset, offset + limit);
    const end = offset + page.length;
    return ok({
      total_long_notional: decimalString(snapshot.totalLong, 6),
      total_short_notional: decimalString(snapshot.totalShort, 6),
      total_positions: snapshot.rows.length,
      rows: page.map((r) => r.wire),
      next_cursor: end < snapshot.rows.length ? `s${snapshot.id}o${end}` : null,
    });
  }

  #filter(b: Record<string, unknown>): Checked<{ key: string; symbol?: string; broker?: string; minNotional: number }> {
    const symbol = b.symbol;
    if (symbol !== undefined && symbol !== null && typeof symbol !== "string") return refused(-1005, "symbol must be a string");
    const broker = b.broker_id;
    if (broker !== undefined && broker !== null && typeof broker !== "string") return refused(-1005, "broker_id must be a string");
    const raw = b.min_notional ?? 0;
    const minNotional = typeof raw === "string" && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    if (typeof minNotional !== "number" || !Number.isFinite(minNotional) || minNotional < 0)
      return refused(-1005, "min_notional must be a decimal ≥ 0");
    const out: { key: string; symbol?: string; broker?: string; minNotional: number } = {
      key: `${symbol ?? ""}|${broker ?? ""}|${minNotional}`,
      minNotional,
    };
    if (typeof symbol === "string") out.symbol = symbol;
    if (typeof broker === "string") out.broker = broker;
    return ok(out);
  }

  /** The filter's snapshot, taken afresh when the cached one is older than the cache time. */
  #snapshot(f: { key: string; symbol?: string; broker?: string; minNotional: number }, now: number): Snapshot {
    this.#expireSnapshots(now);
    const cached = this.#byFilter.get(f.key);
    if (cached !== undefined && now - cached.at < this.#cacheMs) return cached;
    const all =
      f.broker !== undefined && f.broker !== SIM_BROKER_ID ? [] : platformPositionRows(this.#core, this.#population(), SIM_BROKER_ID);
    const rows = all.filter((r) => (f.symbol === undefined || r.symbol === f.symbol) && r.notional >= f.minNotional);
    rows.sort((a, b) => b.id - a.id);
    let totalLong = 0;
    let totalShort = 0;
    for (const r of rows) {
      if (r.side === "LONG") totalLong += r.notional;
      else totalShort += r.notional;
    }
    const snapshot: Snapshot = { id: this.#nextSnapshot++, at: now, rows, totalLong, totalShort };
    this.#byFilter.set(f.key, snapshot);
    this.#byId.set(snapshot.id, snapshot);
    return snapshot;
  }

  #expireSnapshots(now: number): void {
    for (const [id, s] of this.#byId) if (now - s.at > this.#cursorTtlMs) this.#byId.delete(id);
    for (const [key, s] of this.#byFilter) if (now - s.at > this.#cursorTtlMs) this.#byFilter.delete(key);
  }
}
