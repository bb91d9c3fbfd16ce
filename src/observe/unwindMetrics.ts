/**
 * The unwinding and P&L families (docs/operations.md "HTTP endpoints and metrics"): held position per symbol, unwind orders by result,
 * slippage of their fills, time from a claim's assignment to flat, realized P&L by component and
 * unrealized P&L. Sampled values (positions, P&L) are read at scrape time from a source.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { oneOf } from "./metricMakers.js";

export const ORDER_RESULTS = ["sent", "filled", "partial", "unfilled", "rejected", "unknown", "not_accepted"] as const;
const PNL_COMPONENTS = ["liquidator_fee", "trading", "fees", "net"] as const;

/** Fill price against the mark when the order was decided, bps (positive = worse). */
const SLIPPAGE_BUCKETS_BPS = [-50, -20, -10, -5, -2, 0, 2, 5, 10, 20, 30, 50, 100, 200];
/** Claim assigned → position back to zero. */
const TIME_TO_FLAT_BUCKETS_SECONDS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 120, 300, 600, 1800];

export interface PnlSample {
  liquidator_fee: number;
  trading: number;
  fees: number;
  net: number;
  unrealized: number;
}

export interface UnwindMetrics {
  readonly ordersTotal: Counter<"result">;
  readonly slippageBps: Histogram;
  readonly timeToFlat: Histogram;
  readonly halted: Gauge<"symbol">;
  readonly positionsCorrected: Counter<"symbol">;
  /** Unwind orders neither their lookup nor the order list could settle (given up; positions re-read). */
  readonly ordersUnsettled: Counter;
  setPositionSource(source: () => Iterable<{ symbol: string; qty: number }>): void;
  /** Seconds each position being unwound has been open (not flat). */
  setOpenSource(source: () => Iterable<{ symbol: string; seconds: number }>): void;
  setPnlSource(source: () => PnlSample): void;
  /** Signed quantity held per symbol that no claim explains (the operator's own; not unwound with `unwind.scope: claimed`). */
  setUnexplainedSource(source: () => Iterable<{ symbol: string; qty: number }>): void;
  /** Notional (quote, at mark) of what is ours but below the venue's minimum order, per symbol. */
  setDustSource(source: () => Iterable<{ symbol: string; notional: number }>): void;
}

export function createUnwindMetrics(registry: Registry, prefix: string): UnwindMetrics {
  const reg = { registers: [registry] };
  let positions: (() => Iterable<{ symbol: string; qty: number }>) | undefined;
  // A symbol once reported stays a series (0 when flat): dashboards show flat, not gone.
  const positionSeen = new Set<string>();
  const openSeen = new Set<string>();
  let pnl: (() => PnlSample) | undefined;
  let open: (() => Iterable<{ symbol: string; seconds: number }>) | undefined;
  let unexplained: (() => Iterable<{ symbol: string; qty: number }>) | undefined;
  const unexplainedSeen = new Set<string>();
  let dust: (() => Iterable<{ symbol: string; notional: number }>) | undefined;
  const dustSeen = new Set<string>();
  new Gauge({
    name: `${prefix}dust_notional_quote`,
    help: "Notional (quote, at mark) of claimed positions below the venue's minimum order per symbol: ours, not closable, not counted as open",
    labelNames: ["symbol"],
    ...reg,
    collect() {
      if (dust === undefined) return;
      // A series from a symbol's first position on (0 while none of it is dust), as liquidator_position.
      const values = new Map<string, number>();
      for (const p of positions?.() ?? []) values.set(p.symbol, 0);
      for (const d of dust()) values.set(d.symbol, d.notional);
      setEverySeen(this, dustSeen, [...values]);
    },
  });
  new Gauge({
    name: `${prefix}positions_unexplained`,
    help: "Signed base quantity held per symbol that no claim explains (the operator's own): left alone with unwind.scope claimed",
    labelNames: ["symbol"],
    ...reg,
    collect() {
      if (unexplained === undefined) return;
      setEverySeen(
        this,
        unexplainedSeen,
        [...unexplained()].map((p) => [p.symbol, p.qty] as const),
      );
    },
  });
  new Gauge({
    name: `${prefix}position_open_seconds`,
    help: "How long each position the daemon is unwinding has been open (not flat); dust and held symbols excluded",
    labelNames: ["symbol"],
    ...reg,
    collect() {
      if (open === undefined) return;
      setEverySeen(
        this,
        openSeen,
        [...open()].map((o) => [o.symbol, o.seconds] as const),
      );
    },
  });
  new Gauge({
    name: `${prefix}position`,
    help: "Signed base quantity held per symbol (the venue's view)",
    labelNames: ["symbol"],
    ...reg,
    collect() {
      if (positions === undefined) return;
      setEverySeen(
        this,
        positionSeen,
        [...positions()].map((p) => [p.symbol, p.qty] as const),
      );
    },
  });
  const pnlGauge = new Gauge({
    name: `${prefix}pnl_quote`,
    help: "Realized P&L since the journal began by component (liquidator_fee, trading, fees paid, net), quote",
    labelNames: ["component"],
    ...reg,
    collect() {
      if (pnl === undefined) return;
      const s = pnl();
      for (const c of PNL_COMPONENTS) this.set({ component: c }, s[c]);
    },
  });
  new Gauge({
    name: `${prefix}pnl_unrealized_quote`,
    help: "Unrealized P&L of what is still held, at mark, quote",
    ...reg,
    collect() {
      if (pnl !== undefined) this.set(pnl().unrealized);
    },
  });
  const ordersTotal = new Counter({
    name: `${prefix}orders_total`,
    help: `Unwind orders by result (${oneOf(ORDER_RESULTS)})`,
    labelNames: ["result"],
    ...reg,
  });
  for (const result of ORDER_RESULTS) ordersTotal.inc({ result }, 0);
  for (const component of PNL_COMPONENTS) pnlGauge.set({ component }, 0);
  return {
    ordersTotal,
    slippageBps: new Histogram({
      name: `${prefix}unwind_slippage_bps`,
      help: "Unwind fill price against the mark when the order was decided, bps (positive = worse)",
      buckets: SLIPPAGE_BUCKETS_BPS,
      ...reg,
    }),
    timeToFlat: new Histogram({
      name: `${prefix}time_to_flat_seconds`,
      help: "Claim assigned to the symbol's position back at zero",
      buckets: TIME_TO_FLAT_BUCKETS_SECONDS,
      ...reg,
    }),
    halted: new Gauge({
      name: `${prefix}unwind_halted`,
      help: "1 while unwinding of the symbol is halted (a reduce-only order refused for margin)",
      labelNames: ["symbol"],
      ...reg,
    }),
    // No label: the series exists (0) from the start, so the alert's increase() sees the first one.
    ordersUnsettled: new Counter({
      name: `${prefix}orders_unsettled_total`,
      help: "Unwind orders neither the lookup by client order id nor GET /v1/orders could settle: given up, positions re-read",
      ...reg,
    }),
    positionsCorrected: new Counter({
      name: `${prefix}positions_corrected_total`,
      help: "Times GET /v1/positions found a held quantity other than the daemon's (the venue wins)",
      labelNames: ["symbol"],
      ...reg,
    }),
    setPositionSource: (s) => {
      positions = s;
    },
    setOpenSource: (s) => {
      open = s;
    },
    setPnlSource: (s) => {
      pnl = s;
    },
    setUnexplainedSource: (s) => {
      unexplained = s;
    },
    setDustSource: (s) => {
      dust = s;
    },
  };
}

/** Sets `values` per symbol, and 0 for every symbol seen before but absent now. */
export function setEverySeen(gauge: Gauge<"symbol">, seen: Set<string>, values: readonly (readonly [string, number])[]): void {
  gauge.reset();
  for (const [symbol] of values) seen.add(symbol);
  const now = new Map(values);
  for (const symbol of seen) gauge.set({ symbol }, now.get(symbol) ?? 0);
}
