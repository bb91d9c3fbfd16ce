/**
 * The heatmap's figure (src/lab/replay/forecastScore.ts) on events made by hand: recall needs 5 s of lead
 * and a band level the mark reached; precision is the share of each poll's 2 % band liquidated
 * within 10 minutes; each level's quantity is matched once per use; a liquidation is judged at the
 * mark that follows its push.
 */
import { describe, expect, it } from "vitest";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import { ForecastScoreForTests } from "../../src/lab/replay/forecastScore.js";

const BTC = "PERP_BTC_USDC";
const T = Date.UTC(2026, 0, 5);

const marks = (at: number, price: number): CaptureEvent => ({ k: "markprices", at, data: [{ symbol: BTC, price }] });
/** A poll at `at` (mark 100) with long levels (price → qty). */
const poll = (at: number, levels: [number, number][]): CaptureEvent => ({
  k: "forecast",
  at,
  requestedAt: at - 100,
  marks: [{ symbol: BTC, price: 100 }],
  levels: [{ symbol: BTC, side: "long", prices: levels.map((l) => l[0]), qty: levels.map((l) => l[1]) }],
});
let nextId = 1;
const liquidated = (at: number, qty: number, type = "liquidated"): CaptureEvent => ({
  k: "liquidation",
  at,
  data: [{ liquidationId: nextId++, timestamp: at, type, positionsByPerp: [{ symbol: BTC, positionQty: qty, liquidatorFee: 0.006 }] }],
});

function score(events: CaptureEvent[]) {
  const s = new ForecastScoreForTests("test");
  for (const e of events) s.take(e);
  return s.figure();
}

describe("ForecastScoreForTests", () => {
  it("recall: a liquidation the mark brought to a band level ≥ 5 s after the poll; precision: the band's share liquidated in 10 minutes", () => {
    const f = score([
      marks(T, 100),
      // The 2 % band: 1 at 99, 3 at 98.5; the level at 96 is in the 5 % band only.
      poll(T + 1_000, [
        [96, 10],
        [98.5, 3],
        [99, 1],
      ]),
      liquidated(T + 30_000, 2), // mark 98.4 reached 98.5: 2 of its 3 (nearest the mark first)
      marks(T + 30_000, 98.4),
      liquidated(T + 40_000, 5), // 98.4 reaches the 1 left at 98.5 and the 1 at 99
      marks(T + 40_000, 98.4),
      liquidated(T + 50_000, 1), // nothing reached is left; judged at the lower of 98.4 and 98.9
      marks(T + 50_000, 98.9),
    ]);
    expect(f.liquidations).toBe(3);
    expect(f.liquidated_notional).toBeCloseTo(8 * 98.4, 2);
    expect(f.recall).toBe(0.5);
    // Precision: the band's 4 units (× the poll's mark 100), all liquidated within its 10 minutes.
    expect(f.precision).toBe(1);
    expect(f.band_notional).toBe(400);
    expect(f.median_lead_s).toBe(39);
  });

  it("ignores what is not a liquidation's first push of type liquidated, and counts as unscored what came before a poll had lead", () => {
    const f = score([
      marks(T, 100),
      liquidated(T + 500, 1), // before any poll
      poll(T + 1_000, [[99, 5]]),
      liquidated(T + 3_000, 1), // within 5 s of the first poll
      {
        k: "liquidation",
        at: T + 20_000,
        data: [
          { liquidationId: 999, timestamp: T, type: "claim", positionsByPerp: [{ symbol: BTC, positionQty: 1, liquidatorFee: 0.003 }] },
        ],
      },
      marks(T + 20_000, 98),
    ]);
    expect(f.unscored).toBe(2);
    expect(f.liquidations).toBe(0);
    expect(f.recall).toBeNull();
    // Nothing of the band was liquidated in its 10 minutes.
    expect(f.precision).toBe(0);
  });

  it("precision stops at 10 minutes; recall falls back to the poll before the window", () => {
    const f = score([
      marks(T, 100),
      poll(T, [[99, 2]]),
      liquidated(T + 11 * 60_000, 1), // too late for the first poll's precision, still its forecast (no other poll)
      marks(T + 11 * 60_000, 98.9),
    ]);
    expect(f.recall).toBe(1);
    expect(f.precision).toBe(0);
  });
});
