/**
 * What the shadow tests (shadow.live, shadow.worker) share: the live policy and the mixed sizes they
 * offer (some under `min_fee: 20`, so the policy skips some), and the ids each side claimed: a
 * shadow's from the daemon's debug log, the live account's from the venue's own log.
 */
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, OPEN_POLICY } from "./daemonHarness.js";
import type { LogCollector } from "./logCollector.js";

export const SHADOW_POLICY = { ...OPEN_POLICY, min_fee: 20 };

export const SHADOW_SIZES: readonly [string, number][] = [
  ["PERP_ETH_USDC", 0.05],
  ["PERP_ETH_USDC", 2],
  ["PERP_ETH_USDC", 10],
  ["PERP_SOL_USDC", -3],
  ["PERP_SOL_USDC", -80],
  ["PERP_BTC_USDC", 0.001],
  ["PERP_BTC_USDC", 0.2],
  ["PERP_ETH_USDC", -0.3],
  ["PERP_DOGE_USDC", 20_000],
];

/** Ids a shadow claimed, from the daemon's debug log (`shadow claim`), ascending. */
export function shadowIds(logs: LogCollector, variant: string): number[] {
  return logs
    .find("shadow claim")
    .filter((l) => l.variant === variant)
    .map((l) => l.id as number)
    .sort((a, b) => a - b);
}

/** Ids the venue accepted a claim of the live account for, ascending. */
export function liveIds(sim: SimulatorHandle): number[] {
  return claimsBy(sim)
    .filter((c) => c.code === 0 && c.liquidationId !== undefined)
    .map((c) => c.liquidationId as number)
    .sort((a, b) => a - b);
}
