/**
 * The account's books per symbol, as docs/protocol.md §6.2 fixes them: one net position,
 * `cost_position` accumulating signed cash (fills q × p, claims `cost_position_transfer`, trading
 * fees), `unsettled_pnl = position_qty × mark − cost_position`, the volume-weighted average open
 * price of the open quantity, and the realized P&L of each reducing fill (closed quantity × (price −
 * average open), signed by the side, minus the fill's fee). The liquidator fee of a claim is
 * credited to the USDC holding. Pure arithmetic over one account's state.
 */
import { roundQty } from "./symbols.js";

export interface SymbolBooks {
  qty: number;
  costPosition: number;
  averageOpenPrice: number;
  realizedPnl: number;
  feesPaid: number;
  liquidatorFees: number;
}

export const emptyBooks = (): SymbolBooks => ({
  qty: 0,
  costPosition: 0,
  averageOpenPrice: 0,
  realizedPnl: 0,
  feesPaid: 0,
  liquidatorFees: 0,
});

/**
 * A trade of `qty` (signed: + buy) at `price` paying `fee`; returns the realized P&L of the part that
 * closed (fee included), for the order record.
 */
export function applyFill(b: SymbolBooks, qty: number, price: number, fee: number): number {
  const realized = move(b, qty, price) - fee;
  b.costPosition += qty * price + fee;
  b.realizedPnl += realized;
  b.feesPaid += fee;
  return realized;
}

/**
 * Moves the net position by `qty` (signed) at `price`: the closing part's P&L is returned (fees
 * aside), the opening part re-weights the average open price of what is held.
 */
function move(b: SymbolBooks, qty: number, price: number): number {
  const closing = b.qty !== 0 && Math.sign(qty) !== Math.sign(b.qty) ? Math.min(Math.abs(qty), Math.abs(b.qty)) : 0;
  const realized = closing * (price - b.averageOpenPrice) * Math.sign(b.qty);
  const opening = Math.abs(qty) - closing;
  const before = b.qty;
  b.qty = roundQty(b.qty + qty);
  if (b.qty === 0) b.averageOpenPrice = 0;
  else if (opening > 0) {
    // Growing (or flipped): the open quantity's entry is the volume-weighted one.
    const kept = Math.sign(before) === Math.sign(b.qty) ? Math.abs(before) : 0;
    b.averageOpenPrice = (kept * b.averageOpenPrice + opening * price) / (kept + opening);
  }
  return realized;
}

/** A claim assigned `qty` (signed) at `transferPrice`; the liquidator fee goes to the holding. */
export function applyClaim(b: SymbolBooks, qty: number, transferPrice: number, costPositionTransfer: number, liquidatorFee: number): void {
  b.realizedPnl += move(b, qty, transferPrice);
  b.costPosition += costPositionTransfer;
  b.liquidatorFees += liquidatorFee;
}

export function unsettledPnl(b: SymbolBooks, mark: number): number {
  return b.qty * mark - b.costPosition;
}
