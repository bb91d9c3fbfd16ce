/**
 * Money as log lines print it: rounded to 6 decimals (a millionth of the quote currency, finer than
 * any venue's fee), so a fee sums to 81.306592 rather than 81.30659159999999. For reading only: the
 * journal and the metrics keep the exact values.
 */
export function logMoney(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Fills with their fee rounded for a log line (quantity and price are the venue's own decimals). */
export function logFills<F extends { fee: number }>(fills: readonly F[]): F[] {
  return fills.map((f) => ({ ...f, fee: logMoney(f.fee) }));
}
