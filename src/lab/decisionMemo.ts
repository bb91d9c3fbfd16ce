/**
 * A decision is a function of the liquidation, the policy context (policy, symbols, marks, exposure,
 * the account's collateral) and the time (engine/policy.ts). The claim queue decides a liquidation
 * when it is offered and again when a permit takes it, most often at the same instant with nothing
 * changed in between: then the decision is the one already made, and a replay (ReplayVariant) does
 * not decide again, nor ask its followers, whose decisions repeat too. "Nothing changed" is read
 * from the context object (swapped whole on a new policy or symbol table), the exposure's and the
 * marks' versions (every change bumps them) and the collateral the account's margin is checked
 * against (in the lab, the starting collateral plus the fees earned).
 */
import type { Exposure } from "../engine/exposure.js";
import type { MarkBook } from "../engine/marks.js";
import type { Decision, PolicyContext } from "../engine/policy.js";
import type { Liquidation } from "../engine/types.js";

export interface DecisionMemoOptions {
  context: () => PolicyContext;
  exposure: Exposure;
  marks: MarkBook;
  /** What the account's collateral changes with, besides the context (the lab's fees earned). */
  earned: () => number;
  decide: (liquidation: Liquidation, now: number) => Decision;
}

interface Decided {
  now: number;
  context: PolicyContext;
  exposure: number;
  marks: number;
  earned: number;
  decision: Decision;
}

export class DecisionMemo {
  readonly #o: DecisionMemoOptions;
  /** Each liquidation's last decision and what it was decided on. */
  readonly #last = new WeakMap<Liquidation, Decided>();
  /** Decisions given back without deciding (the bench's and the tests' count). */
  hits = 0;

  constructor(options: DecisionMemoOptions) {
    this.#o = options;
  }

  decide(liquidation: Liquidation, now: number): Decision {
    const o = this.#o;
    const context = o.context();
    const exposure = o.exposure.version;
    const marks = o.marks.version;
    const earned = o.earned();
    const last = this.#last.get(liquidation);
    if (
      last !== undefined &&
      last.now === now &&
      last.context === context &&
      last.exposure === exposure &&
      last.marks === marks &&
      last.earned === earned
    ) {
      this.hits++;
      return last.decision;
    }
    const decision = o.decide(liquidation, now);
    if (last === undefined) this.#last.set(liquidation, { now, context, exposure, marks, earned, decision });
    else {
      last.now = now;
      last.context = context;
      last.exposure = exposure;
      last.marks = marks;
      last.earned = earned;
      last.decision = decision;
    }
    return decision;
  }
}
