/**
 * The replay of a backtest's variants in passes over the captures, each group of variants that
 * decide alike replayed once (decisionGroup.ts). The first pass groups the variants whose configs
 * differ only under `policy`, the first of each group leading it. A follower that forked (decided
 * otherwise at one of its leader's decisions) is replayed in the next pass, grouped with the ones
 * that forked from the same leader at the same decision and decided the same there (they are still
 * alike up to that point, and likely after); each pass settles at least its leaders, so the passes
 * end. Every variant's result is the one it would have replayed alone.
 */
import { canonical } from "../sweep/canonical.js";
import { groupKey, replayed } from "../sweep/decisionGroup.js";
import type { Variant } from "../sweep/variants.js";
import { ReplayMarket } from "./replayMarket.js";
import type { ReplayModel, VariantResult } from "./replayVariant.js";

interface Pending {
  /** Which model (latency) of the backtest's. */
  readonly model: number;
  readonly index: number;
  /** Variants with equal keys replay as one group. */
  readonly key: string;
}

interface Unit {
  readonly model: number;
  readonly leader: number;
  readonly followers: number[];
}

/**
 * Replays `variants` under each of `models`; `read` hands every event of the captures, in order, to
 * the markets given (one pass). `group` false: every variant replays in full, in one pass.
 * Returns each model's results in the variants' order, the passes it took and the variants it
 * replayed in full (the leaders, over every model).
 */
export async function replayInPasses(
  variants: readonly Variant[],
  models: readonly ReplayModel[],
  group: boolean,
  read: (markets: readonly ReplayMarket[]) => Promise<void>,
): Promise<{ results: VariantResult[][]; passes: number; leaders: number }> {
  const results: (VariantResult | undefined)[][] = models.map(() => new Array(variants.length));
  let pending: Pending[] = [];
  for (let m = 0; m < models.length; m++)
    for (let i = 0; i < variants.length; i++)
      pending.push({ model: m, index: i, key: group ? groupKey((variants[i] as Variant).config) : String(i) });
  let passes = 0;
  let leaders = 0;
  // At least one pass, even of no variant: it is what reads the captures.
  do {
    passes++;
    const units = plan(pending);
    leaders += units.length;
    const markets = models.flatMap((model, m) => {
      const own = units.filter((u) => u.model === m);
      if (own.length === 0 && passes > 1) return [];
      const market = new ReplayMarket(
        own.map((u) => variants[u.leader] as Variant),
        model,
        own.map((u) => u.followers.map((i) => variants[i] as Variant)),
      );
      return [{ units: own, market }];
    });
    await read(markets.map((x) => x.market));
    pending = [];
    for (const { units: own, market } of markets) {
      market.groupResults().forEach((g, k) => {
        const u = own[k] as Unit;
        (results[u.model] as (VariantResult | undefined)[])[u.leader] = g.result;
        g.followers.forEach((f, j) => {
          const index = u.followers[j] as number;
          if ("result" in f) (results[u.model] as (VariantResult | undefined)[])[index] = f.result;
          else pending.push({ model: u.model, index, key: `${u.leader}@${f.fork.call}:${canonical(replayed(f.fork.decision))}` });
        });
      });
    }
  } while (pending.length > 0);
  return { results: results as VariantResult[][], passes, leaders };
}

/** One unit per model and key, led by its first variant, in the order they come. */
function plan(pending: readonly Pending[]): Unit[] {
  const byKey = new Map<string, { model: number; leader: number; followers: number[] }>();
  for (const p of pending) {
    const k = `${p.model}|${p.key}`;
    const u = byKey.get(k);
    if (u === undefined) byKey.set(k, { model: p.model, leader: p.index, followers: [] });
    else u.followers.push(p.index);
  }
  return [...byKey.values()];
}
