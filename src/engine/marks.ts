/**
 * The mark-price book: the last mark of every symbol and when the daemon received it. The engine has
 * no clock: ages are computed against a `now` the caller passes (the daemon's monotonic-ish clock,
 * the same one that stamped `receivedAt`).
 */
import type { Mark, PriceSource } from "./types.js";

interface MarkEntry {
  readonly symbol: string;
  price: number;
  receivedAt: number;
}

export class MarkBook implements PriceSource {
  // One mutable entry per symbol, updated in place and never replaced or removed: a mark update
  // every second per symbol must not allocate, and Exposure holds the entries (PriceSource.get).
  private readonly entries = new Map<string, MarkEntry>();
  #version = 0;

  /** Changes with every mark taken (PriceSource.version). */
  get version(): number {
    return this.#version;
  }

  /**
   * Record a mark. Refused (false) when the price is not a positive finite number or `receivedAt`
   * is not finite — such a mark would be worse than an old one, which at least ages out — and when
   * it is older than the mark already held (a REST snapshot answered after a newer stream push).
   */
  set(symbol: string, price: number, receivedAt: number): boolean {
    // Number.isFinite is also false for non-numbers that slipped past validation.
    if (!Number.isFinite(price) || price <= 0 || !Number.isFinite(receivedAt)) return false;
    const e = this.entries.get(symbol);
    if (e === undefined) {
      this.#version++;
      this.entries.set(symbol, { symbol, price, receivedAt });
      return true;
    }
    if (receivedAt < e.receivedAt) return false;
    this.#version++;
    e.price = price;
    e.receivedAt = receivedAt;
    return true;
  }

  /** Record every `{symbol, price}` of one frame (e.g. a `markprices` push); returns how many were taken. */
  setMany(marks: readonly { readonly symbol: string; readonly price: number }[], receivedAt: number): number {
    let n = 0;
    for (const m of marks) if (this.set(m.symbol, m.price, receivedAt)) n++;
    return n;
  }

  /** The mark held for `symbol` (a live view: it changes with later updates; copy it to keep it). */
  get(symbol: string): Mark | undefined {
    return this.entries.get(symbol);
  }

  /** Last known price regardless of age (for exposure notionals), or undefined. */
  price(symbol: string): number | undefined {
    return this.entries.get(symbol)?.price;
  }

  /** Age in ms at `now` (never negative), or undefined when there is no mark. */
  ageMs(symbol: string, now: number): number | undefined {
    const e = this.entries.get(symbol);
    if (e === undefined) return undefined;
    const age = now - e.receivedAt;
    return age > 0 ? age : 0;
  }

  /** True when a mark exists and is at most `maxAgeMs` old at `now`. */
  isFresh(symbol: string, now: number, maxAgeMs: number): boolean {
    const e = this.entries.get(symbol);
    return e !== undefined && now - e.receivedAt <= maxAgeMs;
  }

  /**
   * Age of the oldest mark among `symbols` (all held marks when omitted) at `now`: Infinity when one
   * of the given symbols has no mark, or when the book is empty. For `/readyz` and the age gauges.
   */
  oldestAgeMs(now: number, symbols?: Iterable<string>): number {
    let oldest = 0;
    let seen = false;
    const list = symbols ?? this.entries.keys();
    for (const s of list) {
      const e = this.entries.get(s);
      if (e === undefined) return Number.POSITIVE_INFINITY;
      seen = true;
      const age = now - e.receivedAt;
      if (age > oldest) oldest = age;
    }
    return seen ? oldest : Number.POSITIVE_INFINITY;
  }

  get size(): number {
    return this.entries.size;
  }

  symbols(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Snapshot copies of every mark (for metrics and logs, not the hot path). */
  snapshot(): Mark[] {
    const out: Mark[] = [];
    for (const e of this.entries.values()) out.push({ symbol: e.symbol, price: e.price, receivedAt: e.receivedAt });
    return out;
  }
}
