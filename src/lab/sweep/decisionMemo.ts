/**
 * A decision is a function of the liquidation, the policy context (policy, symbols, marks, exposure,
 * the account's collateral) and the time (engine/policy.ts). The claim queue decides a liquidation
 * when it is offered and again when a permit takes it, most often at the same instant with nothing
 * changed in between: then the decision is the one already made, and a replay (ReplayVariant) does
 * not decide again, nor ask its followers, whose decisions repeat too. "Nothing changed" is read
 * from the context object (swapped whole on a new policy or symbol table), the exposure's and the
 * marks' versions (every change bumps them) and the collateral the account's margin is checked
 * against (in the lab, the starting collateral plus the fees earned).
 *
 * Only recent decisions are kept, in a fixed table indexed by the liquidation's id (a week's
 * liquidations in a WeakMap made the garbage collector walk them all): a decision pushed out by
 * another id decides again, which is never wrong.
 */
import type { Exposure } from "../../engine/exposure.js";
import type { MarkBook } from "../../engine/marks.js";
import type { Decision, PolicyContext } from "../../engine/policy.js";
import type { Liquidation } from "../../engine/types.js";

export interface DecisionMemoOptions {
  context: () => PolicyContext;
  exposure: Exposure;
  marks: MarkBook;
  /** What the account's collateral changes with, besides the context (the lab's fees earned). */
  earned: () => number;
  decide: (liquidation: Liquidation, now: number) => Decision;
}

/** Slots of the table: more than a cascade frame's liquidations offered before the first is taken. */
const SLOTS = 4_096;

interface Decided {
  readonly liquidation: Liquidation;
  readonly now: number;
  readonly context: PolicyContext;
  readonly exposure: number;
  readonly marks: number;
  readonly earned: number;
  readonly decision: Decision;
}

export class DecisionMemo {
  readonly #o: DecisionMemoOptions;
  /** Recent liquidations' last decisions and what each was decided on, at `id % SLOTS`. */
  readonly #slots: (Decided | undefined)[] = new Array(SLOTS).fill(undefined);
  /** Decisions given back without deciding (the tests read it). */
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
    const id = liquidation.liquidationId;
    // An id the decision refuses (invalid_liquidation) has no slot: it is decided each time.
    if (!Number.isSafeInteger(id) || id < 0) return o.decide(liquidation, now);
    const slot = id % SLOTS;
    const last = this.#slots[slot];
    if (
      last !== undefined &&
      last.liquidation === liquidation &&
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
    this.#slots[slot] = { liquidation, now, context, exposure, marks, earned, decision };
    return decision;
  }
}
