/**
 * A cascade of 100 liquidations in one push: the claims leave at no more than 5 in any sliding
 * 1,000 ms window as the venue receives them (docs/protocol.md §4; the venue never answers -1003), and
 * in order of expected fee, highest first (late binding: each limiter permit takes the best pending
 * claim). Caps are set so that none of them interferes: every liquidation is taken whole.
 */
import { expect } from "vitest";
import { countById, requestsFrom, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

const N = 100;

test("a cascade of 100: at most 5 claims per sliding second at the venue, highest expected fee first", async ({ rig }) => {
  const sim = await rig.sim({ liquidationTtlMs: 600_000 });
  const dir = await rig.dir("cascade");
  await rig.daemon({ sim, stateDir: dir, timing: { reconcileIntervalMs: 2_000 }, until: "ready" });

  // Two symbols of different fee rates, sizes log-uniform over two decades: fees vary widely.
  const ids = sim.core.cascade(N, { symbols: ["PERP_ETH_USDC", "PERP_SOL_USDC"], side: 1, notional: [500, 50_000] });
  expect(ids).toHaveLength(N);
  // Expected fee of each (taken whole) at the marks, which the quiet scenario keeps still.
  const fee = new Map<number, number>();
  for (const liq of sim.core.openLiquidations()) {
    fee.set(
      liq.liquidationId,
      liq.positions.reduce((a, p) => a + Math.abs(p.positionQty) * (sim.core.mark(p.symbol) as number) * p.liquidatorFee, 0),
    );
  }
  expect(new Set(fee.values()).size).toBeGreaterThan(N / 2);

  await waitFor(() => requestsFrom(sim).filter((r) => r.code === 0).length === N, "all 100 claimed", 60_000);
  const requests = requestsFrom(sim);
  expect(requests.filter((r) => r.code === -1003)).toEqual([]);
  expect([...countById(requests).values()].every((n) => n === 1)).toBe(true);

  // No 6 requests inside one 1,000 ms window (venue receive times, integer ms).
  const times = requests.map((r) => r.receivedAt).sort((a, b) => a - b);
  const crowded: number[][] = [];
  for (let i = 0; i + 5 < times.length; i++) {
    if ((times[i + 5] as number) - (times[i] as number) < 1_000) crowded.push(times.slice(i, i + 6));
  }
  expect(crowded).toEqual([]);

  // Highest expected fee first. The cascade arrives in one frame, so every claim after the first
  // was chosen among all the ones still pending; the first may have been granted before the whole
  // frame was queued.
  const order = requests.map((r) => fee.get(r.liquidationId as number) as number);
  const inversions: [number, number, number][] = [];
  for (let i = 2; i < order.length; i++) {
    if ((order[i] as number) > (order[i - 1] as number) * (1 + 1e-9)) inversions.push([i, order[i - 1] as number, order[i] as number]);
  }
  expect(inversions).toEqual([]);
}, 90_000);
