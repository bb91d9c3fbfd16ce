/**
 * A config with some dotted keys changed (`backtest --set`, `shadow.variants[].set`): the keys are
 * written into the raw (pre-validation) config and the whole is validated again by the schema, so a
 * key the schema does not know, or a value it refuses, is found the way a config file's would be.
 * One code path for the lab's variants and the live shadows: a shadow decides exactly as the
 * backtest variant with the same settings would.
 */
import { type Problem, problemsFromZod } from "./issues.js";
import { type Config, configSchema } from "./schema.js";

export { OVERRIDE_KEY } from "./configOverridesKey.js";

export type Override = readonly [key: string, value: unknown];

export type OverrideResult =
  | { ok: true; config: Config }
  /** `culprit`: the override a problem is about, when one is (else the base itself is invalid). */
  | { ok: false; problems: Problem[]; culprit: { override: Override; problem: string } | undefined };

function setPath(raw: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split(".");
  let node = raw;
  for (const p of parts.slice(0, -1)) {
    const next = node[p];
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[p] = {};
    node = node[p] as Record<string, unknown>;
  }
  node[parts.at(-1) as string] = value;
}

/** `base` (a raw config: YAML as read, environment applied) with `overrides` written in, validated. */
export function withOverrides(base: Record<string, unknown>, overrides: readonly Override[]): OverrideResult {
  const raw = structuredClone(base);
  for (const [k, v] of overrides) setPath(raw, k, v);
  const parsed = configSchema.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  const problems = problemsFromZod(parsed.error.issues);
  for (const p of problems) {
    const o = overrides.find(([k]) => p.key === k || p.key.startsWith(`${k}.`) || k.startsWith(`${p.key}.`) || p.key === "");
    if (o !== undefined) return { ok: false, problems, culprit: { override: o, problem: p.problem } };
  }
  return { ok: false, problems, culprit: undefined };
}
