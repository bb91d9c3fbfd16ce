/**
 * The venue's side of the soak: every liquidation the simulated venue offered (from its own pushes)
 * and every claim it received (its claim log), turned into missed, duplicate and failed claims.
 * All times are the venue's clock (ms).
 *
 * Definitions (the report prints them):
 * - offered: a liquidation id first pushed on the `liquidation` topic during the run.
 * - eligible: offered at least `graceMs` before the end of the run, and not taken by a competitor
 *   within `graceMs` of its first push (so it stayed open to us for at least `graceMs`). The soak's
 *   policy is wide open (caps far above any generated size, every symbol allowed, the venue's own
 *   symbols), so every offered liquidation is within the daemon's policy; what can still keep the
 *   daemon from claiming — stale marks, a stream down, a refused claim — is what the soak measures.
 * - claimed: our account had at least one successful claim on the id.
 * - missed: eligible and never claimed by us.
 * - duplicate: an id with two successful claims of ours, or any claim request of ours after our
 *   success (the daemon must never claim an id twice, across restarts too).
 * - failed: a claim request of ours that the venue refused, by code (-1 = connection dropped by a
 *   fault, -1000 = a 5xx fault, -1003 = rate limited...).
 */
import type { ClaimLogEntry } from "../sim/claimLog.js";
import type { VenueCore } from "../sim/venueCore.js";

interface Offered {
  id: number;
  firstPushAt: number;
  goneAt: number | undefined;
  /** the expected fee (docs/protocol.md §11) at the marks of the first push: Σ |qty| × mark × liquidator_fee. */
  expectedFee: number;
}

export interface IdOutcome {
  id: number;
  firstPushAt: number;
  goneAt: number | undefined;
  goneReason: string | undefined;
  expectedFee: number;
  eligible: boolean;
  claimedByUs: boolean;
  competitorFirst: boolean;
  /** Venue time of our first successful claim minus the first push. */
  claimDelayMs: number | undefined;
  ourRequests: { at: number; code: number }[];
  duplicate: boolean;
}

export class SoakLedger {
  readonly #core: VenueCore;
  readonly #offered = new Map<number, Offered>();
  readonly #unsubscribe: () => void;

  constructor(core: VenueCore) {
    this.#core = core;
    this.#unsubscribe = core.onPush((push) => {
      if (push.scope !== "public" || push.topic !== "liquidation") return;
      const now = core.now();
      for (const row of push.data as {
        liquidationId: number;
        positionsByPerp: { symbol: string; positionQty: number; liquidatorFee: number }[];
      }[]) {
        const known = this.#offered.get(row.liquidationId);
        if (row.positionsByPerp.length === 0) {
          if (known !== undefined && known.goneAt === undefined) known.goneAt = now;
        } else if (known === undefined) {
          let expectedFee = 0;
          for (const p of row.positionsByPerp) expectedFee += Math.abs(p.positionQty) * (core.mark(p.symbol) ?? 0) * p.liquidatorFee;
          this.#offered.set(row.liquidationId, { id: row.liquidationId, firstPushAt: now, goneAt: undefined, expectedFee });
        }
      }
    });
  }

  detach(): void {
    this.#unsubscribe();
  }

  get offeredCount(): number {
    return this.#offered.size;
  }

  /** Every offered id's outcome as of `now`. Our claims are the REST ones (competitors claim in-process). */
  outcomes(now: number, runEnd: number, graceMs: number): IdOutcome[] {
    const byId = new Map<number, ClaimLogEntry[]>();
    for (const e of this.#core.claimRequests()) {
      if (e.liquidationId === undefined) continue;
      let list = byId.get(e.liquidationId);
      if (list === undefined) {
        list = [];
        byId.set(e.liquidationId, list);
      }
      list.push(e);
    }
    const out: IdOutcome[] = [];
    for (const o of this.#offered.values()) {
      const entries = (byId.get(o.id) ?? []).sort((a, b) => a.seq - b.seq);
      const ours = entries.filter((e) => e.source === "rest");
      const ourSuccesses = ours.filter((e) => e.code === 0);
      const firstSuccess = entries.find((e) => e.code === 0);
      const competitorFirst =
        firstSuccess !== undefined && firstSuccess.source === "competitor" && firstSuccess.decidedAt - o.firstPushAt < graceMs;
      const decided = Math.min(now, runEnd) - o.firstPushAt >= graceMs;
      const claimedByUs = ourSuccesses.length > 0;
      const firstOurs = ourSuccesses[0];
      const afterSuccess = firstOurs === undefined ? 0 : ours.filter((e) => e.seq > firstOurs.seq).length;
      out.push({
        id: o.id,
        firstPushAt: o.firstPushAt,
        goneAt: o.goneAt,
        goneReason: this.#core.book.closedReason(o.id),
        expectedFee: o.expectedFee,
        eligible: decided && !competitorFirst,
        claimedByUs,
        competitorFirst,
        claimDelayMs: firstOurs === undefined ? undefined : firstOurs.receivedAt - o.firstPushAt,
        ourRequests: ours.map((e) => ({ at: e.receivedAt, code: e.code })),
        duplicate: ourSuccesses.length > 1 || afterSuccess > 0,
      });
    }
    return out;
  }

  /** Our refused claim requests received in [from, to), by venue code. */
  failedByCode(from: number, to: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const e of this.#core.claimRequests()) {
      if (e.source !== "rest" || e.code === 0 || e.receivedAt < from || e.receivedAt >= to) continue;
      const k = String(e.code);
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  }

  /** Our claim requests (any outcome) received in [from, to). */
  requests(from: number, to: number): number {
    let n = 0;
    for (const e of this.#core.claimRequests()) if (e.source === "rest" && e.receivedAt >= from && e.receivedAt < to) n++;
    return n;
  }
}

/** Counts over a set of outcomes (a minute's, or the whole run's). */
export interface OutcomeCounts {
  offered: number;
  eligible: number;
  claimedByUs: number;
  missed: number;
  competitorFirst: number;
  duplicates: number;
}

export function countOutcomes(list: readonly IdOutcome[]): OutcomeCounts {
  const c: OutcomeCounts = { offered: list.length, eligible: 0, claimedByUs: 0, missed: 0, competitorFirst: 0, duplicates: 0 };
  for (const o of list) {
    if (o.eligible) c.eligible++;
    if (o.claimedByUs) c.claimedByUs++;
    if (o.eligible && !o.claimedByUs) c.missed++;
    if (o.competitorFirst) c.competitorFirst++;
    if (o.duplicate) c.duplicates++;
  }
  return c;
}
