/**
 * The venue's liquidations as they come and go (docs/protocol.md §5, §11): opened one by one, in a
 * batch or as a cascade, reopened under an old id, removed by hand, expired at their TTL, each change
 * pushed as one `liquidation` frame. The open ones and their remaining quantities are kept by
 * liquidationBook.ts; claims (claimProcessor.ts) take from them.
 */
import type { ClaimLog } from "./claimLog.js";
import type { BookedLiquidation, LiquidationBook } from "./liquidationBook.js";
import { type GenerateOptions, generatePositions } from "./liquidationGen.js";
import type { MarketState } from "./marketState.js";
import type { Prng } from "./prng.js";
import type { SimPush } from "./simPush.js";
import type { ListedSymbols } from "./symbols.js";
import { liquidationPushRow } from "./wireShapes.js";

export interface AddLiquidationInput {
  /** `liquidator_fee` defaults to the symbol's (the insurance fund's rows carry its discount). */
  positions: readonly { symbol: string; position_qty: number; liquidator_fee?: number }[];
  type?: string;
  ttlMs?: number;
}

export interface CascadeOptions extends Omit<GenerateOptions, "count"> {
  /** Move the marks of the cascade's symbols by this fraction first (e.g. −0.03), as a crash would. */
  shock?: number;
  ttlMs?: number;
}

export interface LiquidationsOptions {
  now: () => number;
  /** docs/protocol.md §11: an unclaimed liquidation goes to the insurance fund after this. */
  ttlMs: number;
  symbols: ListedSymbols;
  market: MarketState;
  prng: Prng;
  book: LiquidationBook;
  claimLog: ClaimLog;
  emit: (push: SimPush) => void;
  /** Push every mark (a cascade's shock moves them first). */
  publishMarks: () => void;
  /** The liquidations the TTL took off the book, after their removal was pushed. */
  expired: (liqs: readonly BookedLiquidation[]) => void;
}

export class Liquidations {
  readonly #options: LiquidationsOptions;

  constructor(options: LiquidationsOptions) {
    this.#options = options;
  }

  /** Push `liquidation` rows in one frame; `newIds` start their tick-to-claim clock. */
  push(rows: unknown[], newIds: number[] = []): void {
    if (rows.length === 0) return;
    // The tick-to-claim clock starts as the venue hands the push to the streams.
    if (newIds.length > 0) this.#options.claimLog.markEmitted(newIds, this.#options.now());
    this.#options.emit({ scope: "public", topic: "liquidation", data: rows });
  }

  #open(input: AddLiquidationInput, reuseId?: number): BookedLiquidation {
    if (input.positions.length === 0) throw new RangeError("a liquidation needs at least one position");
    const seen = new Set<string>();
    const positions = input.positions.map((p) => {
      const spec = this.#options.symbols.get(p.symbol);
      if (spec === undefined) throw new RangeError(`unknown symbol ${p.symbol}`);
      if (seen.has(p.symbol)) throw new RangeError(`symbol ${p.symbol} listed twice`);
      seen.add(p.symbol);
      if (!Number.isFinite(p.position_qty) || p.position_qty === 0) throw new RangeError("position_qty must be a non-zero number");
      return { symbol: p.symbol, positionQty: p.position_qty, liquidatorFee: p.liquidator_fee ?? spec.liquidatorFee };
    });
    const now = this.#options.now();
    const ttl = input.ttlMs ?? this.#options.ttlMs;
    const liq: BookedLiquidation = {
      liquidationId: reuseId ?? this.#options.book.nextId(),
      timestamp: now,
      type: input.type ?? "liquidated",
      positions,
      expiresAt: now + ttl,
    };
    if (reuseId === undefined) this.#options.book.add(liq);
    else this.#options.book.reopen(liq);
    return liq;
  }

  /** Open several liquidations at once, pushed in one `liquidation` frame as the venue batches them; their ids. */
  add(inputs: readonly AddLiquidationInput[]): number[] {
    this.expireDue();
    const opened = inputs.map((input) => this.#open(input));
    this.push(
      opened.map((l) => liquidationPushRow(l)),
      opened.map((l) => l.liquidationId),
    );
    return opened.map((l) => l.liquidationId);
  }

  /** A closed liquidation id open again with new quantities (docs/protocol.md §5), pushed as an update. */
  reopen(id: number, input: AddLiquidationInput): void {
    this.expireDue();
    const liq = this.#open(input, id);
    this.push([liquidationPushRow(liq)]);
  }

  /** A random liquidation from the seeded generator. */
  addRandom(options: GenerateOptions & { ttlMs?: number } = {}): number {
    const { prng, symbols, market } = this.#options;
    const positions = generatePositions(prng, symbols, (s) => market.mark(s), options);
    return this.add([{ positions, ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}) }])[0] as number;
  }

  /**
   * A burst of `n` liquidations on the same side of the same few symbols (a price crash), pushed as
   * one `liquidation` frame as the venue batches them.
   */
  cascade(n: number, options: CascadeOptions = {}): number[] {
    if (!Number.isInteger(n) || n < 1) throw new RangeError("cascade size must be a positive integer");
    this.expireDue();
    const { prng, market } = this.#options;
    const symbols = options.symbols ?? [prng.pick(this.#options.symbols.names())];
    const side = options.side ?? (prng.chance(0.5) ? 1 : -1);
    if (options.shock !== undefined) {
      for (const s of symbols) {
        const m = market.mark(s);
        if (m !== undefined) market.set(s, m * (1 + options.shock), this.#options.now());
      }
      this.#options.publishMarks();
    }
    const opened: BookedLiquidation[] = [];
    for (let i = 0; i < n; i++) {
      const gen: GenerateOptions = { symbols, side, count: prng.int(1, Math.min(2, symbols.length)) };
      if (options.notional !== undefined) gen.notional = options.notional;
      const positions = generatePositions(prng, this.#options.symbols, (s) => market.mark(s), gen);
      opened.push(this.#open({ positions, ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}) }));
    }
    this.push(
      opened.map((l) => liquidationPushRow(l)),
      opened.map((l) => l.liquidationId),
    );
    return opened.map((l) => l.liquidationId);
  }

  /** Remove an open liquidation by hand (pushed as gone); false if it was not open. */
  remove(id: number): boolean {
    const liq = this.#options.book.get(id);
    if (liq === undefined || !this.#options.book.remove(id, "removed")) return false;
    this.push([liquidationPushRow(liq, true)]);
    return true;
  }

  /** Hand expired liquidations to the insurance fund (docs/protocol.md §11) and push their removal. */
  expireDue(): number[] {
    const { book } = this.#options;
    const ids = book.expiredAt(this.#options.now());
    const rows: unknown[] = [];
    const expired: BookedLiquidation[] = [];
    for (const id of ids) {
      const liq = book.get(id);
      if (liq !== undefined && book.remove(id, "expired")) {
        rows.push(liquidationPushRow(liq, true));
        expired.push(liq);
      }
    }
    this.push(rows);
    this.#options.expired(expired);
    return ids;
  }

  /** Copies of the open liquidations, after the due ones expired. */
  list(): BookedLiquidation[] {
    this.expireDue();
    return this.#options.book.list().map((l) => ({ ...l, positions: l.positions.map((p) => ({ ...p })) }));
  }
}
