/** The P&L ledger's sums (pnlLedger.ts): per UTC day and per symbol, net = liquidator fee + trading − fees. */
export interface PnlTotals {
  liquidatorFee: number;
  trading: number;
  fees: number;
  net: number;
}

/** Adds to the totals under `key`, starting them at zero. */
export function bump(map: Map<string, PnlTotals>, key: string, liquidatorFee: number, trading: number, fees: number): void {
  let t = map.get(key);
  if (t === undefined) {
    t = { liquidatorFee: 0, trading: 0, fees: 0, net: 0 };
    map.set(key, t);
  }
  t.liquidatorFee += liquidatorFee;
  t.trading += trading;
  t.fees += fees;
  t.net = t.liquidatorFee + t.trading - t.fees;
}

/** The symbol of a lot key (`SYMBOL` or `SYMBOL MODE`). */
export function symbolOfKey(key: string): string {
  const space = key.indexOf(" ");
  return space < 0 ? key : key.slice(0, space);
}
