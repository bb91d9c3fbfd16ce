/**
 * `npm run bench -- --phases shadow`: what shadow variants cost the live path. The tick-to-claim run
 * (daemon against the floor) and one cascade run, each with no shadow and then with `--shadows`
 * variants (default 8) in the daemon's config; the ratios and the cascade's event-loop delay side
 * by side, and the shadows' CPU time (`liquidator_shadow_cpu_seconds_total`) per shadow and per event.
 */

/** Settings of the bench's shadows: the sweep a user would run on min_fee and the slippage. */
export const SHADOW_SETS: readonly Record<string, unknown>[] = [0, 1, 5, 20].flatMap((fee) =>
  [20, 100].map((bps) => ({ "policy.min_fee": fee, "policy.limit_price_slippage_bps": bps })),
);

/** The `shadow:` section of the daemon's config with `n` variants (empty for 0). */
export function shadowSectionYaml(n: number): string {
  if (n <= 0) return "";
  const lines = ["shadow:", "  variants:"];
  for (let i = 0; i < n; i++) {
    const set = SHADOW_SETS[i % SHADOW_SETS.length] as Record<string, unknown>;
    lines.push(`    - name: s${i}`, `      set: ${JSON.stringify(set)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** What the shadows cost in one run: CPU seconds (all shadows) and the events they replayed. */
export interface ShadowCost {
  cpuSeconds: number;
  events: number;
}

/** One side of the comparison (0 or N shadows). */
export interface ShadowSide {
  shadows: number;
  ratioP50: number;
  ratioP99: number;
  cascadeEventLoopP99MsDuring: number;
  cascadeRatio: number;
  latencyCost: ShadowCost;
  cascadeCost: ShadowCost;
}

export interface ShadowResult {
  off: ShadowSide;
  on: ShadowSide;
  /** CPU per replayed event per shadow (µs), over both runs with shadows. */
  cpuUsPerEventPerShadow: number;
  /** CPU per shadow over the cascade run (ms): its liquidations and marks, replayed. */
  cascadeCpuMsPerShadow: number;
}

export interface ShadowRuns {
  latency(shadows: number): Promise<{ ratioP50: number; ratioP99: number; cost: ShadowCost }>;
  cascade(shadows: number): Promise<{ eventLoopP99MsDuring: number; ratio: number; cost: ShadowCost }>;
}

export async function measureShadows(runs: ShadowRuns, shadows: number): Promise<ShadowResult> {
  const side = async (n: number): Promise<ShadowSide> => {
    const l = await runs.latency(n);
    const c = await runs.cascade(n);
    return {
      shadows: n,
      ratioP50: l.ratioP50,
      ratioP99: l.ratioP99,
      cascadeEventLoopP99MsDuring: c.eventLoopP99MsDuring,
      cascadeRatio: c.ratio,
      latencyCost: l.cost,
      cascadeCost: c.cost,
    };
  };
  const off = await side(0);
  const on = await side(shadows);
  const per = Math.max(1, shadows);
  const r3 = (x: number): number => Math.round(x * 1000) / 1000;
  const cpu = on.latencyCost.cpuSeconds + on.cascadeCost.cpuSeconds;
  const events = on.latencyCost.events + on.cascadeCost.events;
  return {
    off,
    on,
    cpuUsPerEventPerShadow: events > 0 ? r3((cpu * 1e6) / events / per) : Number.NaN,
    cascadeCpuMsPerShadow: r3((on.cascadeCost.cpuSeconds * 1000) / per),
  };
}
