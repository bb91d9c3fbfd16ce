/**
 * `shadow.variants`: each variant's config is the running one (file and environment) with its `set`
 * keys changed, built and validated exactly as `backtest --set` builds a variant (configOverrides.ts).
 * A key the schema does not know, or a value it refuses, is a config problem naming the variant's key.
 */
import { withOverrides } from "./configOverrides.js";
import type { Problem } from "./issues.js";
import type { Config } from "./schema.js";

/** The shape of a backtest variant (lab/sweep/variants.ts `Variant`): a shadow is one. */
export interface ShadowVariant {
  name: string;
  /** The variant's `set`, as given. */
  settings: Record<string, unknown>;
  config: Config;
}

/** `raw`: the config as read (YAML with the environment applied), which validated into `config`. */
export function shadowVariantsOf(raw: Record<string, unknown>, config: Config): { variants: ShadowVariant[]; problems: Problem[] } {
  const variants: ShadowVariant[] = [];
  const problems: Problem[] = [];
  // A variant's own config carries no variants of its own.
  const base = { ...raw, shadow: undefined };
  config.shadow.variants.forEach((v, i) => {
    const overrides = Object.entries(v.set);
    const r = withOverrides(base, overrides);
    if (r.ok) {
      // One replay offers the fund's rows one way (lab/replay/replayMarket.ts): the variants share a route.
      const first = variants[0]?.config.insurance_fund.route;
      const route = r.config.insurance_fund.route;
      if (first !== undefined && route !== first) {
        const whose = "insurance_fund.route" in v.set ? "" : " (the running config's)";
        problems.push({
          key: `shadow.variants[${i}].set.insurance_fund.route`,
          problem: `${route}${whose} where ${variants[0]?.name} replays ${first}: the shadow variants offer the insurance fund's rows by one route`,
        });
      }
      variants.push({ name: v.name, settings: { ...v.set }, config: r.config });
      return;
    }
    const at = `shadow.variants[${i}]`;
    if (r.culprit !== undefined) problems.push({ key: `${at}.set.${r.culprit.override[0]}`, problem: r.culprit.problem });
    else for (const p of r.problems) problems.push({ key: `${at} (${p.key})`, problem: p.problem });
  });
  return { variants, problems };
}
