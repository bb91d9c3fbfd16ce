/**
 * The soak's unwinding figures: percentiles read from cumulative histogram buckets (as Prometheus
 * reads them), histograms summed over daemon restarts, P&L from the last process, net ÷ fees.
 */
import { describe, expect, test } from "vitest";
import { parsePrometheus } from "../../src/observe/promText.js";
import { bucketQuantileForTests, unwindFigures, unwindSample } from "../../src/soak/soakUnwind.js";

const SCRAPE = `# HELP liquidator_time_to_flat_seconds x
liquidator_time_to_flat_seconds_bucket{le="0.5"} 2
liquidator_time_to_flat_seconds_bucket{le="1"} 8
liquidator_time_to_flat_seconds_bucket{le="5"} 10
liquidator_time_to_flat_seconds_bucket{le="+Inf"} 10
liquidator_time_to_flat_seconds_sum 9
liquidator_time_to_flat_seconds_count 10
liquidator_unwind_slippage_bps_bucket{le="0"} 1
liquidator_unwind_slippage_bps_bucket{le="5"} 9
liquidator_unwind_slippage_bps_bucket{le="+Inf"} 10
liquidator_pnl_quote{component="liquidator_fee"} 40
liquidator_pnl_quote{component="trading"} -6
liquidator_pnl_quote{component="fees"} 4
liquidator_pnl_quote{component="net"} 30
`;

describe("soak unwinding figures", () => {
  test("a percentile is the smallest bucket bound holding that share", () => {
    const b = { "0.5": 2, "1": 8, "5": 10, "+Inf": 10 };
    expect(bucketQuantileForTests(b, 0.2)).toBe(0.5);
    expect(bucketQuantileForTests(b, 0.5)).toBe(1);
    expect(bucketQuantileForTests(b, 0.99)).toBe(5);
    expect(bucketQuantileForTests({ "1": 0, "+Inf": 0 }, 0.5)).toBeUndefined();
    expect(bucketQuantileForTests({ "1": 0, "+Inf": 3 }, 0.5)).toBe(Number.POSITIVE_INFINITY);
  });

  test("histograms add up over restarts; P&L is the last process's (it replays the journal)", () => {
    const one = unwindSample(parsePrometheus(SCRAPE));
    const restarted = { ...one, timeToFlat: { "0.5": 0, "1": 0, "5": 0, "+Inf": 10 }, pnl: { liquidator_fee: 50, net: 35 } };
    const u = unwindFigures([one, restarted], 3);
    expect(u.flats).toBe(20);
    // 20 observations: 2 ≤ 0.5 s, 8 ≤ 1 s, 10 ≤ 5 s, 20 ≤ +Inf: the median is in the 5 s bucket.
    expect(u.timeToFlatS).toEqual({ p50: 5, p99: Number.POSITIVE_INFINITY });
    expect(u.slippageBps).toEqual({ p50: 5, p99: Number.POSITIVE_INFINITY });
    expect(u.netOverFees).toBeCloseTo(0.7, 12);
    expect(u.exposureCapSkips).toBe(3);
    expect(unwindFigures([one], 0).netOverFees).toBeCloseTo(0.75, 12);
    expect(unwindFigures([], 0).netOverFees).toBeUndefined();
  });
});
