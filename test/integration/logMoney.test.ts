import { expect } from "vitest";
import type { SymbolSpec } from "../../src/sim/symbols.js";
import { roundToStep } from "../../src/sim/symbols.js";
import { claimsBy, journalText, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

const SYMBOLS = ["PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC"];

/** Every number under a key named like a fee, anywhere in `value`. */
function fees(value: unknown, out: number[] = []): number[] {
  if (Array.isArray(value)) for (const v of value) fees(v, out);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (/fee$/i.test(k) && typeof v === "number") out.push(v);
      else fees(v, out);
    }
  return out;
}

const decimals = (x: number): number => (String(x).split(".")[1] ?? "").length;

test("claim accepted lines print fees to at most 6 decimals; the journal keeps them exact", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("log-money");
  const daemon = await rig.daemon({ sim, stateDir: dir });
  await waitFor(() => daemon.logs.has("positions read from the venue; claiming may start"), "ready to claim");
  const ids: number[] = [];
  for (let i = 0; i < 16; i++) {
    const symbol = SYMBOLS[i % SYMBOLS.length] as string;
    const spec = sim.core.symbols.get(symbol) as SymbolSpec;
    const qty = roundToStep((700 + i * 137.3) / (sim.core.mark(symbol) as number), spec.qtyStep);
    ids.push(sim.core.addLiquidation({ positions: [{ symbol, position_qty: i % 2 === 0 ? qty : -qty }] }));
  }
  await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "16 claims", 60_000);
  await waitFor(() => daemon.logs.find("claim accepted").length >= ids.length, "16 claim accepted lines", 30_000);

  const journal = journalText(dir)
    .split("\n")
    .filter((l) => l.includes('"t":"outcome"'))
    .map((l) => JSON.parse(l) as unknown);
  // The raw sums do carry float noise: without rounding the log would print it.
  expect(fees(journal).some((f) => decimals(f) > 6)).toBe(true);
  const logged = daemon.logs.find("claim accepted");
  const printed = fees(logged);
  expect(printed.length).toBeGreaterThanOrEqual(ids.length * 2);
  expect(printed.filter((f) => decimals(f) > 6)).toEqual([]);
});
