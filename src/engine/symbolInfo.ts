/**
 * The symbol table: tier, fee, tick and min notional of every symbol, from the rows of
 * `GET /v1/public/info` (PROTOCOL.md §4). Rows are untrusted: a row whose numbers the engine cannot
 * use is left out (and reported), so its symbol is `unknown_symbol` to the policy — never a claim
 * priced on a made-up tick.
 */
import { canonicalTick, tickDecimals } from "./quantize.js";
import type { SymbolInfo } from "./types.js";

/** Symbols as the venue writes them (simrules: `PERP_<BASE>_<QUOTE>`). Also keeps `__proto__` out of records. */
const SYMBOL_PATTERN = /^PERP_[A-Z0-9]+_[A-Z0-9]+$/;

/** A symbol's info plus what the hot path derives from it once. */
export interface ResolvedSymbolInfo extends SymbolInfo {
  /** Decimals of `baseTick` (limit prices are written with this many decimals). */
  readonly tickDecimals: number;
}

/** The fields of one `GET /v1/public/info` row the engine uses (the row may carry more). */
export interface SymbolInfoRow {
  readonly symbol?: unknown;
  readonly liquidation_tier?: unknown;
  readonly liquidator_fee?: unknown;
  readonly base_tick?: unknown;
  readonly min_notional?: unknown;
}

export type SymbolInfoCheck = { ok: true; info: ResolvedSymbolInfo } | { ok: false; symbol: string; problem: string };

/** Validate one domain `SymbolInfo`; `problem` says what is wrong. */
export function checkSymbolInfo(info: SymbolInfo): SymbolInfoCheck {
  const symbol = typeof info.symbol === "string" ? info.symbol : String(info.symbol);
  const bad = (problem: string): SymbolInfoCheck => ({ ok: false, symbol, problem });
  if (typeof info.symbol !== "string" || !SYMBOL_PATTERN.test(info.symbol)) return bad("symbol is not PERP_<BASE>_<QUOTE>");
  if (info.tier !== 1 && info.tier !== 2) return bad("liquidation_tier is not 1 or 2");
  // A fee ≥ 1 would make the transfer price non-positive (simrules: mark × (1 − fee)).
  if (!Number.isFinite(info.liquidatorFee) || info.liquidatorFee < 0 || info.liquidatorFee >= 1) {
    return bad("liquidator_fee is not a fraction in [0, 1)");
  }
  const decimals = tickDecimals(info.baseTick);
  if (decimals === undefined) return bad("base_tick is not a positive decimal with at most 12 decimals");
  if (!Number.isFinite(info.minNotional) || info.minNotional < 0) return bad("min_notional is not a finite number >= 0");
  return {
    ok: true,
    info: {
      symbol: info.symbol,
      tier: info.tier,
      liquidatorFee: info.liquidatorFee,
      baseTick: canonicalTick(info.baseTick, decimals),
      minNotional: info.minNotional,
      tickDecimals: decimals,
    },
  };
}

/** Map one snake_case row to the domain form (not yet validated: `checkSymbolInfo` does that). */
export function symbolInfoFromRow(row: SymbolInfoRow): SymbolInfo {
  return {
    symbol: row.symbol as string,
    tier: row.liquidation_tier as 1 | 2,
    liquidatorFee: row.liquidator_fee as number,
    baseTick: row.base_tick as number,
    minNotional: row.min_notional as number,
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
   * Build from `GET /v1/public/info` rows, leaving out (and listing in `rejected`) every row the
   * engine cannot use, and every later duplicate of a symbol.
   */
  static fromInfoRows(rows: readonly unknown[]): { table: SymbolTable; rejected: { symbol: string; problem: string }[] } {
    const table = new SymbolTable();
    const rejected: { symbol: string; problem: string }[] = [];
    for (const row of rows) {
      if (typeof row !== "object" || row === null) {
        rejected.push({ symbol: "?", problem: "row is not an object" });
        continue;
      }
      const c = checkSymbolInfo(symbolInfoFromRow(row as SymbolInfoRow));
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
