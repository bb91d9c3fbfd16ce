/**
 * Order faults on demand (tests, the soak): the next orders refused with a code that says "not
 * processed" (-1011, -1012), orders applied whose answer is lost (the connection reset before it is
 * written), partial fills (only a fraction of what the book offers is taken), and an empty book for
 * a while (kept by the book itself, so that its REST view and its matching agree). Also: the next
 * claims land in an isolated position instead of the cross one (docs/protocol.md §9).
 */
import type { SyntheticBook } from "./orderBook.js";

interface PartialFill {
  fraction: number;
  symbol: string | undefined;
  times: number;
  until: number;
}

export class OrderFaults {
  readonly #now: () => number;
  readonly #book: (symbol: string) => SyntheticBook | undefined;
  #refusals: number[] = [];
  #lostAnswers = 0;
  #isolatedClaims = 0;
  readonly #partial: PartialFill[] = [];
  readonly #emptied = new Set<SyntheticBook>();

  constructor(now: () => number, book: (symbol: string) => SyntheticBook | undefined = () => undefined) {
    this.#now = now;
    this.#book = book;
  }

  /** `symbol`'s book shows and fills nothing for `forMs` (both sides). */
  emptyBook(symbol: string, forMs: number): void {
    const book = this.#book(symbol);
    if (book === undefined) throw new RangeError(`no book for ${symbol}`);
    if (!(forMs > 0)) throw new RangeError("forMs must be positive");
    book.empty(this.#now(), forMs);
    this.#emptied.add(book);
  }

  /** The next `n` orders are refused with `code` before anything is checked or applied. */
  refuseOrders(n: number, code: -1011 | -1012): void {
    if (!(Number.isInteger(n) && n >= 0)) throw new RangeError("n must be a whole number ≥ 0");
    for (let i = 0; i < n; i++) this.#refusals.push(code);
  }

  /** The next `n` accepted orders are applied, then their connection is reset instead of answered. */
  loseAnswers(n: number): void {
    if (!(Number.isInteger(n) && n >= 0)) throw new RangeError("n must be a whole number ≥ 0");
    this.#lostAnswers += n;
  }

  /** Orders (of `symbol`, or any) take only `fraction` of what they could, `times` orders or for `forMs`. */
  partialFills(fraction: number, o: { symbol?: string; times?: number; forMs?: number } = {}): void {
    if (!(fraction >= 0 && fraction < 1)) throw new RangeError("fraction must be in [0, 1)");
    this.#partial.push({
      fraction,
      symbol: o.symbol,
      times: o.times ?? Number.POSITIVE_INFINITY,
      until: o.forMs === undefined ? Number.POSITIVE_INFINITY : this.#now() + o.forMs,
    });
  }

  /** The next `n` successful claims of any account assign isolated positions. */
  assignIsolated(n: number): void {
    if (!(Number.isInteger(n) && n >= 0)) throw new RangeError("n must be a whole number ≥ 0");
    this.#isolatedClaims += n;
  }

  takeIsolatedClaim(): boolean {
    if (this.#isolatedClaims === 0) return false;
    this.#isolatedClaims--;
    return true;
  }

  /** Ends every fault, empty books included. */
  clear(): void {
    this.#refusals = [];
    this.#lostAnswers = 0;
    this.#isolatedClaims = 0;
    this.#partial.length = 0;
    for (const book of this.#emptied) book.refill();
    this.#emptied.clear();
  }

  takeRefusal(): number | undefined {
    return this.#refusals.shift();
  }

  takeLostAnswer(): boolean {
    if (this.#lostAnswers === 0) return false;
    this.#lostAnswers--;
    return true;
  }

  /** The share of an order's fillable quantity it may take (1 without a fault); counts one use. */
  fillFraction(symbol: string): number {
    const now = this.#now();
    const i = this.#partial.findIndex((p) => (p.symbol === undefined || p.symbol === symbol) && p.times > 0 && now < p.until);
    if (i === -1) return 1;
    const p = this.#partial[i] as PartialFill;
    p.times--;
    return p.fraction;
  }
}
