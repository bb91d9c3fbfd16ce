/**
 * Variants replayed as one, proven identical rather than guessed. Two variants whose configs differ
 * only under `policy` run the same replay as long as the policy decides the same: the policy is read
 * by the decision alone (PolicyState → engine/policy.ts, its margin step included) and by the time at
 * the exposure cap (variantFacts.ts CapClock). So one variant of such a group (the leader) replays in
 * full, and at every decision it makes each other one (a follower) decides with its own policy on the
 * leader's state of that moment (the same liquidation, marks, exposure, symbols and margin account).
 * While every decision is equal, field by field and in key order, the follower's replay would be the
 * leader's step for step (same inputs, same decisions, same state): its result is the leader's with
 * its own name, settings and time at cap. A follower that decides otherwise once has forked: its
 * result is unknown here and it is replayed again (backtest.ts).
 */
import type { Config } from "../config/schema.js";
import { type Decision, decide, type PolicyContext } from "../engine/policy.js";
import { compileRiskPolicy, type RiskPolicy } from "../engine/riskPolicy.js";
import type { Liquidation } from "../engine/types.js";
import type { VariantResult } from "./replayVariant.js";
import { CapClock } from "./variantFacts.js";
import type { Variant } from "./variants.js";

/** Where a follower left its leader: the leader's `call`-th decision (0-based), which it made otherwise. */
export interface Fork {
  call: number;
  decision: Decision;
}

/**
 * What must be equal for two variants to be replayed as one: the whole config but `policy`, in a
 * form independent of key order.
 */
export function groupKey(config: Config): string {
  const { policy: _policy, ...rest } = config;
  return canonical(rest);
}

/** JSON with every object's keys sorted: equal for configs equal in value. */
export function canonical(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(",")}]`;
  if (x !== null && typeof x === "object") {
    const keys = Object.keys(x).sort();
    return `{${keys
      .filter((k) => (x as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((x as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  // JSON.stringify loses -0 and non-finite numbers; those must not make two values look equal.
  if (typeof x === "number") return Object.is(x, -0) ? "-0" : Number.isFinite(x) ? String(x) : `"${x}"`;
  return JSON.stringify(x) ?? "undefined";
}

/**
 * Equal as a replay would use them: the same primitives (Object.is), and objects with the same keys
 * in the same order (a decision's per-symbol records are iterated, so their order is part of it).
 */
export function sameDecision(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i]) return false;
    if (!sameDecision((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

interface Follower {
  readonly index: number;
  readonly variant: Variant;
  readonly policy: RiskPolicy;
  readonly cap: CapClock;
  /** Its decision context, rebuilt when the leader's changes (a new symbol table). */
  context: PolicyContext | undefined;
  base: PolicyContext | undefined;
  fork: Fork | undefined;
}

/** The followers of one leader (ReplayVariant), checked at each of its decisions. */
export class DecisionFollowers {
  readonly #all: Follower[];
  /** Not forked yet, in their order. */
  #live: Follower[];
  #calls = 0;

  constructor(followers: readonly Variant[]) {
    this.#all = followers.map((variant, index) => ({
      index,
      variant,
      policy: compileRiskPolicy(variant.config.policy),
      cap: new CapClock(variant.config.policy.max_total_exposure),
      context: undefined,
      base: undefined,
      fork: undefined,
    }));
    this.#live = [...this.#all];
  }

  /** The leader decided `d` on `context` (its own, of this moment): every live follower decides too. */
  check(liquidation: Liquidation, now: number, context: PolicyContext, d: Decision): void {
    const call = this.#calls++;
    let forked = false;
    for (const f of this.#live) {
      if (f.base !== context) {
        f.base = context;
        f.context = { ...context, policy: f.policy };
      }
      const own = decide(liquidation, f.context as PolicyContext, now);
      if (!sameDecision(d, own)) {
        f.fork = { call, decision: own };
        forked = true;
      }
    }
    if (forked) this.#live = this.#live.filter((f) => f.fork === undefined);
  }

  /** The leader's curves took a point at `at` with this exposure. */
  point(at: number, exposure: number): void {
    for (const f of this.#live) f.cap.point(at, exposure);
  }

  /** The leader's decision refused a claim for the exposure cap (so did every live follower's). */
  refused(at: number): void {
    for (const f of this.#live) f.cap.refused(at);
  }

  /** After the leader's `result`: each follower's result (the leader's, with its own name, settings and time at cap), or its fork. */
  results(leader: VariantResult, now: number): ({ result: VariantResult } | { fork: Fork })[] {
    return this.#all.map((f) =>
      f.fork !== undefined
        ? { fork: f.fork }
        : { result: { ...leader, name: f.variant.name, settings: f.variant.settings, at_cap_seconds: f.cap.finish(now) } },
    );
  }
}
