/**
 * The symbol table: tier, fee, price tick and min notional of every symbol, from the venue's symbol
 * info (venue/mapping.ts). Infos are untrusted: one whose numbers the engine cannot use is left out
 * (and reported), so its symbol is `unknown_symbol` to the policy — never a claim priced on a
 * made-up tick.
 */
import { validMarginParams } from "./margin.js";
import { canonicalTick, tickDecimals } from "./quantize.js";
import { SYMBOL_PATTERN, type SymbolInfo } from "./types.js";

/** A symbol's info plus what the hot path derives from it once. */
export interface ResolvedSymbolInfo extends SymbolInfo {
  /** Decimals of `priceTick` (limit prices are written with this many decimals). */
  readonly priceDecimals: number;
  /** Decimals of the order filters' `qtyTick`, when the symbol has filters. */
  readonly qtyDecimals: number | undefined;
}

type SymbolInfoCheck = { ok: true; info: ResolvedSymbolInfo } | { ok: false; symbol: string; problem: string };

/** Validate one domain `SymbolInfo`; `problem` says what is wrong. */
function checkSymbolInfo(info: SymbolInfo): SymbolInfoCheck {
  const symbol = typeof info.symbol === "string" ? info.symbol : String(info.symbol);
  const bad = (problem: string): SymbolInfoCheck => ({ ok: false, symbol, problem });
  if (typeof info.symbol !== "string" || !SYMBOL_PATTERN.test(info.symbol)) return bad("symbol is not PERP_<BASE>_<QUOTE>");
  if (info.tier !== 1 && info.tier !== 2) return bad("liquidation_tier is not 1 or 2");
  // A fee ≥ 1 would make the expected fee exceed the notional claimed (docs/protocol.md §11).
  if (!Number.isFinite(info.liquidatorFee) || info.liquidatorFee < 0 || info.liquidatorFee >= 1) {
    return bad("liquidator_fee is not a fraction in [0, 1)");
  }
  const decimals = tickDecimals(info.priceTick);
  if (decimals === undefined) return bad("quote_tick (the price step) is not a positive decimal with at most 12 decimals");
  if (!Number.isFinite(info.minNotional) || info.minNotional < 0) return bad("min_notional is not a finite number >= 0");
  // Order filters are optional: without usable ones the symbol can be claimed but not unwound.
  const f = info.orderFilters;
  const qtyDecimals = f === undefined ? undefined : tickDecimals(f.qtyTick);
  const filtersOk =
    f !== undefined &&
    qtyDecimals !== undefined &&
    f.qtyMin >= 0 &&
    f.qtyMax >= f.qtyMin &&
    Number.isFinite(f.qtyMax) &&
    f.priceRange > 0 &&
    f.priceRange < 1;
  return {
    ok: true,
    info: {
      symbol: info.symbol,
      tier: info.tier,
      liquidatorFee: info.liquidatorFee,
      priceTick: canonicalTick(info.priceTick, decimals),
      minNotional: info.minNotional,
      priceDecimals: decimals,
      orderFilters: filtersOk ? { ...f, qtyTick: canonicalTick(f.qtyTick, qtyDecimals) } : undefined,
      qtyDecimals: filtersOk ? qtyDecimals : undefined,
      // Margin parameters are optional too: without usable ones the symbol is charged its whole notional.
      margin: info.margin !== undefined && validMarginParams(info.margin) ? info.margin : undefined,
    },
  };
}

export class SymbolTable {
  private readonly bySymbol = new Map<string, ResolvedSymbolInfo>();

  /** Throws RangeError on an invalid or duplicate entry: use `fromInfoRows` for untrusted rows. */
  constructor(infos: Iterable<SymbolInfo> = []) {
    for (const info of infos) {
      const c = checkSymbolInfo(info);
      if (!c.ok) throw new RangeError(`symbol info ${c.symbol}: ${c.problem}`);
      if (this.bySymbol.has(c.info.symbol)) throw new RangeError(`symbol info ${c.info.symbol}: listed twice`);
      this.bySymbol.set(c.info.symbol, c.info);
    }
  }

  /**
   * Build from untrusted symbol infos (the venue's rows, mapped), leaving out (and listing in
   * `rejected`) every one the engine cannot use, and every later duplicate of a symbol.
   */
  static fromUntrusted(infos: readonly SymbolInfo[]): { table: SymbolTable; rejected: { symbol: string; problem: string }[] } {
    const table = new SymbolTable();
    const rejected: { symbol: string; problem: string }[] = [];
    for (const info of infos) {
      const c = checkSymbolInfo(info);
      if (!c.ok) {
        rejected.push({ symbol: c.symbol, problem: c.problem });
      } else if (table.bySymbol.has(c.info.symbol)) {
        rejected.push({ symbol: c.info.symbol, problem: "listed twice" });
      } else {
        table.bySymbol.set(c.info.symbol, c.info);
      }
    }
    return { table, rejected };
  }

  get(symbol: string): ResolvedSymbolInfo | undefined {
    return this.bySymbol.get(symbol);
  }

  has(symbol: string): boolean {
    return this.bySymbol.has(symbol);
  }

  get size(): number {
    return this.bySymbol.size;
  }

  symbols(): IterableIterator<string> {
    return this.bySymbol.keys();
  }

  values(): IterableIterator<ResolvedSymbolInfo> {
    return this.bySymbol.values();
  }
}
