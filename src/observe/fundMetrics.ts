/**
 * The insurance fund as the venue reports it (daemon/feeds/fundWatch.ts, `insurance_fund.enabled`):
 * its positions by symbol, the part no claim row of the open list offers (what this daemon cannot
 * claim), its balance, and the reads' health. The gauges are the last read's, rebuilt at each scrape
 * (a position the fund closed loses its series at once); none before the first read.
 */
import type { Counter, Gauge, Registry } from "prom-client";
import type { FundSample, FundSymbol } from "../engine/fundHoldings.js";
import { fromSource, metricMakers, oneOf } from "./metricMakers.js";

/** The results of a read of the fund (daemon/feeds/fundWatch.ts), each with a series from the watch's start. */
export const FUND_POLL_RESULTS = ["ok", "rate_limited", "error"] as const;

export interface FundMetrics {
  readonly fundPosition: Gauge<"symbol">;
  readonly fundUnlisted: Gauge<"symbol">;
  readonly fundBalance: Gauge;
  readonly fundPolls: Counter<"result">;
  /** What the fund's gauges read at scrape: the last read, undefined before the first. */
  setFundSource(source: () => FundSample | undefined): void;
}

export function createFundMetrics(registry: Registry, prefix: string): FundMetrics {
  const { counter, gauge } = metricMakers(registry, prefix);
  let source: (() => FundSample | undefined) | undefined;
  const sample = (): FundSample | undefined => fromSource(source);
  /** A per-symbol gauge of the last read, in quote at the mark (no series where no mark is known). */
  const perSymbol = (name: string, help: string, base: (s: FundSymbol) => number) =>
    gauge(name, help, ["symbol"], function (this: Gauge<"symbol">) {
      this.reset();
      const last = sample();
      if (last === undefined) return;
      for (const [symbol, s] of last.symbols) if (s.price !== undefined) this.set({ symbol }, base(s) * s.price);
    });
  const fundPosition = perSymbol(
    "insurance_fund_position_quote",
    "The insurance fund's open position by symbol at the mark (quote, absolute; GET /v1/public/insurancefund every 30 s, insurance_fund.enabled)",
    (s) => s.qty,
  );
  const fundUnlisted = perSymbol(
    "insurance_fund_unlisted_quote",
    'The part of the insurance fund\'s position no type: "claim" row of the open list offers: the daemon cannot claim it (quote)',
    (s) => s.unlistedQty,
  );
  const fundBalance = gauge(
    "insurance_fund_balance_quote",
    "The insurance fund's balance as the venue reports it (quote)",
    [],
    function (this: Gauge) {
      const last = sample();
      this.reset();
      if (last?.balance !== undefined) this.set(last.balance);
    },
  );
  const fundPolls = counter("insurance_fund_polls_total", `Insurance fund reads by result (${oneOf(FUND_POLL_RESULTS)})`, ["result"]);
  return {
    fundPosition,
    fundUnlisted,
    fundBalance,
    fundPolls,
    setFundSource(s) {
      source = s;
    },
  };
}
