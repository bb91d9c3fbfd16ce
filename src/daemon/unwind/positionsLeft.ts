/**
 * What stays open of the claimed positions, and why: the safe stop's last word (drain.ts), the
 * shutdown's (SIGTERM leaves positions open and says which) and `liquidator_dust_notional_quote`.
 * Dust (engine/dust.ts) is ours but below the venue's minimum order: reported as dust, never as a
 * position left open. Everything else left open has a reason the operator can act on.
 */
import { isDust } from "../../engine/dust.js";
import type { PositionBook } from "../../engine/positionBook.js";
import type { SymbolTable } from "../../engine/symbolInfo.js";
import type { MarginMode } from "../../engine/types.js";
import { logMoney } from "../../observe/logMoney.js";

/**
 * `dust`: below the minimum order; `dry_run`: nothing is sent; `unwind_off` / `held`: the config
 * keeps it (`unwind.mode: off`, `unwind.hold`); `halted`: a reduce-only order was refused for margin;
 * `no_filters`: the symbol's order filters are unknown; `unwinding`: the unwinder was still at it.
 */
export type LeftReason = "dust" | "dry_run" | "unwind_off" | "held" | "halted" | "no_filters" | "unwinding";

export interface LeftPosition {
  symbol: string;
  marginMode: MarginMode;
  /** Signed quantity left (of what the unwinder may close: `unwind.scope`). */
  qty: number;
  /** |qty| × mark, quote; undefined without a mark. */
  notional: number | undefined;
  reason: LeftReason;
}

export interface PositionsLeftSource {
  positions: Pick<PositionBook, "positions" | "held">;
  /** What the unwinder closes of a position (unwind.scope). */
  target(symbol: string, mode: MarginMode, held: number): number;
  symbols(): SymbolTable;
  mark(symbol: string): number | undefined;
  settings: { readonly mode: "immediate" | "off"; unwinds(symbol: string): boolean };
  dryRun(): boolean;
  /** Symbols whose unwinding is halted (unwinder.ts `halted`). */
  halted(): readonly string[];
}

/** Every claimed position not flat, with why it is open. */
export function positionsLeft(s: PositionsLeftSource): LeftPosition[] {
  const out: LeftPosition[] = [];
  const halted = new Set(s.halted());
  const table = s.symbols();
  for (const { symbol, mode } of s.positions.positions()) {
    const qty = s.target(symbol, mode, s.positions.held(symbol, mode));
    if (qty === 0) continue;
    const mark = s.mark(symbol);
    const dust = isDust(qty, table.get(symbol));
    const reason: LeftReason =
      dust === true
        ? "dust"
        : s.settings.mode === "off"
          ? "unwind_off"
          : !s.settings.unwinds(symbol)
            ? "held"
            : s.dryRun()
              ? "dry_run"
              : halted.has(symbol)
                ? "halted"
                : dust === undefined
                  ? "no_filters"
                  : "unwinding";
    out.push({ symbol, marginMode: mode, qty, notional: mark === undefined ? undefined : Math.abs(qty) * mark, reason });
  }
  return out;
}

export interface LeftSummary {
  /** Positions above dust still open (any reason but dust). */
  open: LeftPosition[];
  dust: LeftPosition[];
  /** Σ notional of the dust, quote. */
  dustNotional: number;
}

export function summarizeLeft(left: readonly LeftPosition[]): LeftSummary {
  const dust = left.filter((p) => p.reason === "dust");
  return {
    open: left.filter((p) => p.reason !== "dust"),
    dust,
    dustNotional: dust.reduce((a, p) => a + (p.notional ?? 0), 0),
  };
}

/** Positions as a log line shows them: notionals rounded (logMoney.ts). */
export function leftForLog(left: readonly LeftPosition[]): LeftPosition[] {
  return left.map((p) => ({ ...p, notional: p.notional === undefined ? undefined : logMoney(p.notional) }));
}

/** Dust notional per symbol (its margin modes summed), for `liquidator_dust_notional_quote{symbol}`. */
export function dustBySymbol(left: readonly LeftPosition[]): { symbol: string; notional: number }[] {
  const by = new Map<string, number>();
  for (const p of left) if (p.reason === "dust") by.set(p.symbol, (by.get(p.symbol) ?? 0) + (p.notional ?? 0));
  return [...by].map(([symbol, notional]) => ({ symbol, notional }));
}

/**
 * A stop that is not a safe stop (SIGTERM, SIGINT) leaves claimed positions open: say which, and
 * what is only dust. Nothing when everything is flat.
 */
export function logLeftAtShutdown(
  left: readonly LeftPosition[],
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void },
): void {
  const { open, dust, dustNotional } = summarizeLeft(left);
  const dustFields = dust.length === 0 ? {} : { dustQuote: logMoney(dustNotional), dust: leftForLog(dust) };
  if (open.length > 0)
    logger.warn(
      { positions: leftForLog(open), ...dustFields },
      "shutting down: these claimed positions stay open (SIGUSR2 stops safely: unwinds first)",
    );
  else if (dust.length > 0) logger.info(dustFields, "shutting down: flat except dust");
}
