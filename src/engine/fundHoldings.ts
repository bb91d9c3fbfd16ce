/**
 * The insurance fund's positions by symbol (docs/protocol.md §10, `GET /v1/public/insurancefund`) set
 * against what the open list's `type: "claim"` rows offer of them: the part nobody can claim through
 * this daemon (daemon/feeds/fundWatch.ts).
 */

/** What of a fund position row this needs (venue/supplySchemas.ts `FundPosition`). */
export interface FundRow {
  symbol: string;
  position_qty: number;
  mark_price?: number | undefined;
}

export interface FundSymbol {
  /** The fund's position, base (absolute). */
  qty: number;
  /** What of it no open claim row lists, base (absolute). */
  unlistedQty: number;
  /** The mark the quote figures use (the daemon's, else the fund row's own); undefined: none known. */
  price: number | undefined;
}

export interface FundSample {
  at: number;
  balance: number | undefined;
  symbols: ReadonlyMap<string, FundSymbol>;
}

/** The fund's positions by symbol against the listed quantities: pure. */
export function fundSample(
  state: { rows: readonly FundRow[]; balance: number | undefined },
  listed: ReadonlyMap<string, number>,
  mark: (symbol: string) => number | undefined,
  at: number,
): FundSample {
  const held = new Map<string, { qty: number; rowMark: number | undefined }>();
  for (const r of state.rows) {
    const h = held.get(r.symbol) ?? { qty: 0, rowMark: undefined };
    h.qty += r.position_qty;
    h.rowMark ??= r.mark_price !== undefined && r.mark_price > 0 ? r.mark_price : undefined;
    held.set(r.symbol, h);
  }
  const symbols = new Map<string, FundSymbol>();
  for (const [symbol, h] of held) {
    const qty = Math.abs(h.qty);
    if (qty === 0) continue;
    // Below a billionth of the position, a difference is the float sums' noise, not a gap.
    const gap = qty - (listed.get(symbol) ?? 0);
    symbols.set(symbol, { qty, unlistedQty: gap > qty * 1e-9 ? gap : 0, price: mark(symbol) ?? h.rowMark });
  }
  return { at, balance: state.balance, symbols };
}
