/**
 * Variants replayed as one, proven identical rather than guessed. Two variants whose configs differ
 * only under `policy` run the same replay as long as the policy decides the same: the policy is read
 * by the decision alone (PolicyState → engine/policy.ts, its margin step included) and by the time at
 * the exposure cap (capClock.ts). So one variant of such a group (the leader) replays in
 * full, and at every decision it makes each other one (a follower) decides with its own policy on the
 * leader's state of that moment (the same liquidation, marks, exposure, symbols and margin account).
 * While every decision is equal in what the replay reads of it (`replayed`), the follower's replay
 * would be the leader's step for step (same inputs, same decisions, same state): its result is the
 * leader's with its own name, settings and time at cap. A follower that decides otherwise once has
 * forked: its result is unknown here and it is replayed again (replayPasses.ts). Followers whose
 * policies differ in `min_fee`, `limit_price_slippage_bps` and `max_total_exposure` alone form a
 * family whose decisions one traced decision settles (engine/decisionTrace.ts): a sweep's followers
 * mostly cost a comparison, not a decision.
 */

import { compileRiskPolicy } from "../../config/riskPolicyOf.js";
import type { Config } from "../../config/schema.js";
import { type DecideTrace, decideTraced, derivedDecision, newDecideTrace } from "../../engine/decisionTrace.js";
import { type ClaimDecision, type Decision, decide, type PolicyContext } from "../../engine/policy.js";
import type { RiskPolicy } from "../../engine/riskPolicy.js";
import type { Liquidation } from "../../engine/types.js";
import { canonical } from "./canonical.js";
import { CapClock } from "./capClock.js";
import { FamilyAgreement, familyKey } from "./decisionFamily.js";
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

/**
 * What a replay reads of a decision (the claim queue, virtualClaimer.ts, ReplayVariant): the action,
 * a skip's reason (its verdict and count), a claim's expected fee (the rank), margin need and room,
 * notional and signed quantity per symbol (reserved, settled, iterated in key order). Not read: the
 * wire form (ratio, symbols), a skip's detail, and the limit prices, which only price a claim whose
 * symbol has no mark when it lands; a claim is decided on marks and the mark book never drops one
 * (engine/marks.ts), and ReplayVariant forks every follower should that ever change.
 */
export function replayed(d: Decision): unknown[] {
  if (d.action === "skip") return [d.liquidationId, d.action, d.reason];
  return [d.liquidationId, d.action, d.expectedFee, d.notional, d.marginNeed, d.marginRoom, Object.entries(d.perSymbolQty)];
}

/** Equal in what the replay reads (`replayed`), numbers by Object.is. */
function sameDecision(a: Decision, b: Decision): boolean {
  if (a.liquidationId !== b.liquidationId || a.action !== b.action) return false;
  if (a.action === "skip") return a.reason === (b as typeof a).reason;
  const c = b as ClaimDecision;
  if (!Object.is(a.expectedFee, c.expectedFee) || !Object.is(a.notional, c.notional)) return false;
  if (!Object.is(a.marginNeed, c.marginNeed) || !Object.is(a.marginRoom, c.marginRoom)) return false;
  const pa = a.perSymbolQty;
  const pb = c.perSymbolQty;
  const ka = Object.keys(pa);
  const kb = Object.keys(pb);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i] || !Object.is(pa[k], pb[k])) return false;
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

/**
 * Followers whose policies differ in `min_fee`, `limit_price_slippage_bps` and `max_total_exposure`
 * alone: one decision with a trace settles most of theirs (engine/decisionTrace.ts). The leader's own
 * family uses the leader's decision; another decides with the policy of its least `min_fee` and, of
 * those, its largest cap (the one whose checks pass and whose room is slack most often, so the fewest
 * members must decide in full).
 */
interface Family {
  readonly leaders: boolean;
  readonly policy: RiskPolicy;
  readonly trace: DecideTrace;
  readonly agree: FamilyAgreement;
  live: Follower[];
  context: PolicyContext | undefined;
  base: PolicyContext | undefined;
}

/** The followers of one leader (ReplayVariant), checked at each of its decisions. */
export class DecisionFollowers {
  readonly #all: Follower[];
  /** Not forked yet, in their order. */
  #live: Follower[];
  /** Each with a live member, the leader's first. */
  #families: Family[];
  readonly #trace = newDecideTrace();
  #calls = 0;

  /** `leader`: the variant these follow (its policy names its own family). */
  constructor(leader: Variant, followers: readonly Variant[]) {
    const own = familyKey(leader.config.policy);
    const byKey = new Map<string, { variants: Variant[]; indexes: number[] }>();
    followers.forEach((variant, index) => {
      const key = familyKey(variant.config.policy);
      const entry = byKey.get(key) ?? { variants: [], indexes: [] };
      entry.variants.push(variant);
      entry.indexes.push(index);
      byKey.set(key, entry);
    });
    this.#all = new Array(followers.length);
    this.#families = [];
    for (const [key, { variants, indexes }] of byKey) {
      const leaders = key === own;
      let least = variants[0] as Variant;
      for (const v of variants) {
        const [a, b] = [v.config.policy, least.config.policy];
        if (a.min_fee < b.min_fee || (a.min_fee === b.min_fee && a.max_total_exposure > b.max_total_exposure)) least = v;
      }
      const family: Family = {
        leaders,
        policy: compileRiskPolicy((leaders ? leader : least).config.policy),
        trace: newDecideTrace(),
        agree: new FamilyAgreement(variants.map((v) => compileRiskPolicy(v.config.policy))),
        live: [],
        context: undefined,
        base: undefined,
      };
      variants.forEach((variant, k) => {
        const f: Follower = {
          index: indexes[k] as number,
          variant,
          policy: family.agree.policies[k] as RiskPolicy,
          cap: new CapClock(variant.config.policy.max_total_exposure),
          context: undefined,
          base: undefined,
          fork: undefined,
        };
        family.live.push(f);
        this.#all[f.index] = f;
      });
      if (leaders) this.#families.unshift(family);
      else this.#families.push(family);
    }
    this.#live = [...this.#all];
  }

  /**
   * The leader decides on `context` (its own, of this moment) and every live follower with it; the
   * leader's decision.
   */
  lead(liquidation: Liquidation, now: number, context: PolicyContext): Decision {
    const d = decideTraced(liquidation, context, now, this.#trace);
    this.#check(liquidation, now, context, d);
    return d;
  }

  #check(liquidation: Liquidation, now: number, context: PolicyContext, d: Decision): void {
    const call = this.#calls++;
    let forked = false;
    for (const family of this.#families) {
      let base = d;
      let trace = this.#trace;
      if (!family.leaders) {
        if (family.base !== context) {
          family.base = context;
          family.context = { ...context, policy: family.policy };
        }
        trace = family.trace;
        base = decideTraced(liquidation, family.context as PolicyContext, now, trace);
      }
      family.agree.at(trace, context);
      for (const f of family.live) {
        const own = derivedDecision(base, trace, f.policy, context, family.agree) ?? this.#decideAlone(f, liquidation, now, context);
        if (own !== d && !sameDecision(d, own)) {
          f.fork = { call, decision: own };
          forked = true;
        }
      }
    }
    if (forked) {
      this.#live = this.#live.filter((f) => f.fork === undefined);
      for (const family of this.#families) family.live = family.live.filter((f) => f.fork === undefined);
      this.#families = this.#families.filter((family) => family.live.length > 0);
    }
  }

  /** A follower's decision the trace cannot settle: in full, with its own policy. */
  #decideAlone(f: Follower, liquidation: Liquidation, now: number, context: PolicyContext): Decision {
    if (f.base !== context) {
      f.base = context;
      f.context = { ...context, policy: f.policy };
    }
    return decide(liquidation, f.context as PolicyContext, now);
  }

  /**
   * The leader's replay read something of its decision that a follower's may not share (a limit
   * price): every live follower forks there.
   */
  forkAll(d: Decision): void {
    for (const f of this.#live) f.fork = { call: this.#calls, decision: d };
    this.#live = [];
    this.#families = [];
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
  results<R extends { name: string; settings: Variant["settings"]; at_cap_seconds: number }>(
    leader: R,
    now: number,
  ): ({ result: R } | { fork: Fork })[] {
    return this.#all.map((f) =>
      f.fork !== undefined
        ? { fork: f.fork }
        : { result: { ...leader, name: f.variant.name, settings: f.variant.settings, at_cap_seconds: f.cap.finish(now) } },
    );
  }
}
