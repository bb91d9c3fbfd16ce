/**
 * A claim refused with -1201 ("least request ratio should be the specified value", docs/protocol.md
 * §3) whose message names the ratio the venue wants is decided once more with that ratio as a floor
 * (issue #34): the claim goes again only if a fresh decision, on what the daemon knows by then,
 * reaches it under the policy's caps and margin; otherwise it is skipped (`over_caps`). The venue's
 * usual reason is a full take-over: the live quantity fell below the notional threshold (a rival took
 * part of it) while the daemon still saw more.
 *
 * Pure: reading the number out of the message is data, not a decision by message text (the code says
 * what the refusal is; the text only carries the value the code asks for).
 */
import type { Decision } from "./types.js";

/** A ratio after one of the words that introduce it, e.g. "should be 0.25", "must be 1", "at least 0.5". */
const NAMED_RATIO = /(?:should be|must be|at least|least|>=|≥|ratio(?:_qty_request)?(?: is| of)?)\s*[:=]?\s*(\d+(?:\.\d+)?)/i;

/** The ratio a -1201 message names, in (0, 1]; undefined when it names none ("the specified value"). */
export function ratioNamedIn(message: string): number | undefined {
  const m = NAMED_RATIO.exec(message.slice(0, 400));
  if (m === null) return undefined;
  const r = Number(m[1]);
  return r > 0 && r <= 1 ? r : undefined;
}

/**
 * The decision with the venue's least ratio as a floor: a claim whose ratio (and every symbol's)
 * reaches it stands; one below it cannot be raised (the policy gave the most its caps and margin
 * allow) and becomes a skip.
 */
export function withLeastRatio(d: Decision, least: number | undefined): Decision {
  if (least === undefined || d.action !== "claim") return d;
  const low = d.ratio + 1e-9 < least || (d.symbols?.some((s) => s.ratio + 1e-9 < least) ?? false);
  if (!low) return d;
  return { action: "skip", liquidationId: d.liquidationId, reason: "over_caps", detail: `the venue wants a ratio of at least ${least}` };
}

/** Least ratios learnt from -1201 refusals, by liquidation id; bounded (the oldest is forgotten first). */
export class LeastRatios {
  readonly #byId = new Map<number, number>();
  readonly #max: number;

  constructor(max = 1_000) {
    this.#max = max;
  }

  get(id: number): number | undefined {
    return this.#byId.get(id);
  }

  has(id: number): boolean {
    return this.#byId.has(id);
  }

  set(id: number, ratio: number): void {
    if (this.#byId.size >= this.#max) {
      const oldest = this.#byId.keys().next();
      if (!oldest.done) this.#byId.delete(oldest.value);
    }
    this.#byId.set(id, ratio);
  }
}
