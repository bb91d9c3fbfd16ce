/**
 * The claimer in virtual time, for a replay: the daemon's claim pipeline (daemon/claimPipeline.ts)
 * and claim queue (daemon/claimQueue.ts) with the lab's effects. Every liquidation is decided through
 * the daemon's PolicyState and ranked in the same queue; permits come at the claims limiter's spacing
 * (venue/limiters.ts `spacingFor`) and take the best pending claim decided again on the marks and
 * exposure of that moment (late binding); exposure is reserved while a claim is out. No journal and
 * no wire: the modelled venue answers. What a replay cannot know is modelled (docs/policy-lab.md):
 * - the venue's answer lands `latencyMs` after the send (the latency measured in the capture);
 * - the claim wins unless the capture shows the liquidation taken or changed by someone else before
 *   it lands. Changes after the recording account's own accepted claim are that claim's, not a rival's;
 * - a liquidation the recording account's own claim took stays open to the variant (as last offered)
 *   until the variant claims it or forgets it: without that claim it would have stayed on the venue
 *   (rivals' later interest in it cannot be known from the capture).
 */

import { type ClaimGate, type ClaimHold, ClaimPipeline } from "../daemon/claimPipeline.js";
import { ClaimQueue } from "../daemon/claimQueue.js";
import type { IdState } from "../daemon/claimState.js";
import type { ClaimDecision, Decision } from "../engine/policy.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { Liquidation } from "../engine/types.js";
import type { Timeline } from "./timeline.js";

/** A claim the modelled venue applied. */
export interface WonClaim {
  id: number;
  sentAt: number;
  landedAt: number;
  decision: ClaimDecision;
  /** The liquidation as sent (its positions' liquidator fee rates are the claim's: `feeRate`). */
  liquidation: Liquidation;
}

/**
 * The liquidator fee rate of `symbol` in the liquidation as sent (the last position of it, 0 when
 * none): read from its positions when the claim lands, not copied into a record at every send.
 */
export function feeRate(liquidation: Liquidation, symbol: string): number {
  const ps = liquidation.positions;
  for (let i = ps.length - 1; i >= 0; i--) {
    const p = ps[i] as Liquidation["positions"][number];
    if (p.symbol === symbol) return p.liquidatorFee ?? 0;
  }
  return 0;
}

export interface VirtualClaimerOptions {
  decide: (liquidation: Liquidation, now: number) => Decision;
  /** The protection gate (claimPipeline.ts); none: always open. */
  gate?: ClaimGate;
  book: { get(id: number): Liquidation | undefined };
  /** Reserve: exposure (Exposure) while a claim is out. */
  exposure: ClaimHold;
  positions: PositionBook;
  timeline: Timeline;
  /** Minimum gap between two claims, ms (the daemon's claims limiter). */
  spacingMs: number;
  /** Send → answer, ms. */
  latencyMs: number;
  /** Ids the recording account's own claims took, with their send time. */
  ownTakes: ReadonlyMap<number, number>;
  won: (claim: WonClaim) => void;
  skipped: (reason: string) => void;
}

export class VirtualClaimer {
  readonly #o: VirtualClaimerOptions;
  readonly #queue: ClaimQueue;
  readonly #ids: Map<number, IdState>;
  /** When the capture showed an in-flight claim's liquidation taken or changed by someone else. */
  readonly #takenAt = new Map<number, number>();
  /** Finished ids in the order they finished (virtual time only moves forward), for the sweep. */
  #done: { id: number; at: number }[] = [];
  /** Finished long enough ago but still on the open list: forgotten once they leave it. */
  readonly #lingering = new Set<number>();
  /**
   * The last offer of each id on the book not sent for yet: whether the recording account took it is
   * known only when it leaves (a shadow learns of the live daemon's send as it happens).
   */
  readonly #lastOffer = new Map<number, Liquidation>();
  /** Ids taken by the recording account, gone from the capture's book but still open to this variant, since when. */
  readonly #ghosts = new Map<number, { liquidation: Liquidation; since: number }>();
  #lastPermit = Number.NEGATIVE_INFINITY;
  #nonEmptySince = 0;
  #sweptAt = Number.NEGATIVE_INFINITY;
  /** Claims sent (a permit spent on a claim). */
  sent = 0;
  lost = 0;

  constructor(options: VirtualClaimerOptions) {
    this.#o = options;
    const o = options;
    const pipeline = new ClaimPipeline(o.gate === undefined ? { decide: o.decide } : { decide: o.decide, gate: o.gate });
    this.#queue = new ClaimQueue({
      decide: pipeline.decide,
      now: () => o.timeline.now,
      book: { get: (id) => o.book.get(id) ?? this.#ghosts.get(id)?.liquidation },
      skipped: o.skipped,
      queued: (_liquidation, _d, added) => {
        if (added && this.#queue.size === 1) this.#nonEmptySince = o.timeline.now;
      },
      // Changed while ours is out: someone else took part of it, unless it was the recording account.
      onBusy: (id, st) => {
        if (st.phase === "inflight") this.#markTaken(id);
      },
      dispatch: (d, st, liquidation) => this.#send(d, st, liquidation, o.timeline.now),
    });
    this.#ids = this.#queue.states;
  }

  /** Time of the next claims permit, Infinity while nothing is pending. */
  nextPermitAt(): number {
    if (this.#queue.size === 0) return Number.POSITIVE_INFINITY;
    return Math.max(this.#nonEmptySince, this.#lastPermit + this.#o.spacingMs);
  }

  offer(liquidation: Liquidation): void {
    this.#lastOffer.set(liquidation.liquidationId, liquidation);
    this.#queue.offer(liquidation, 0);
  }

  cancel(id: number): void {
    const own = this.#o.ownTakes.has(id) ? this.#lastOffer.get(id) : undefined;
    this.#lastOffer.delete(id);
    const phase = this.#ids.get(id)?.phase;
    // Gone because the recording account took it, before this variant sent for it: still open here.
    if (own !== undefined && phase !== undefined && phase !== "inflight" && phase !== "done") {
      this.#ghosts.set(id, { liquidation: own, since: this.#o.timeline.now });
      return;
    }
    this.#queue.cancel(id);
  }

  retrySkipped(reasons?: ReadonlySet<string>): void {
    this.#queue.retrySkipped(reasons, ZERO);
  }

  /** The daemon's sweep: finished ids gone from the open list for 10 min, and their skip verdicts, are forgotten. */
  sweep(olderThanMs = 600_000): void {
    // Once a virtual minute, not at every open list: a day of ids would make each sweep long.
    const now = this.#o.timeline.now;
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    const cutoff = now - olderThanMs;
    // The same rule as the daemon's sweep, without walking every id: finished ids are taken in the
    // order they finished, up to the cutoff.
    const book = this.#o.book;
    let i = 0;
    for (; i < this.#done.length; i++) {
      const { id, at } = this.#done[i] as { id: number; at: number };
      if (at >= cutoff) break;
      const st = this.#ids.get(id);
      // Forgotten already, or claimed anew after that (its later entry decides).
      if (st === undefined || st.phase !== "done" || st.doneAt !== at) continue;
      if (book.get(id) === undefined) this.#ids.delete(id);
      else this.#lingering.add(id);
    }
    if (i > 0) this.#done = this.#done.slice(i);
    for (const id of this.#lingering) {
      if (book.get(id) !== undefined) continue;
      this.#lingering.delete(id);
      if (this.#ids.get(id)?.phase === "done") this.#ids.delete(id);
    }
    for (const [id, g] of this.#ghosts) {
      if (g.since >= cutoff) continue;
      this.#ghosts.delete(id);
      this.#queue.cancel(id);
    }
    this.#queue.skips.retain((id) => book.get(id) !== undefined || this.#ghosts.has(id));
  }

  /** One claims permit at the current virtual time: the best pending claim that still passes is sent. */
  permit(): void {
    const now = this.#o.timeline.now;
    this.#lastPermit = now;
    this.#queue.take(undefined);
    if (this.#queue.size > 0) this.#nonEmptySince = now;
  }

  /** The lab's effects: reserve, count, and the modelled venue's answer `latencyMs` later. */
  #send(d: ClaimDecision, st: IdState, liquidation: Liquidation, sentAt: number): void {
    const o = this.#o;
    st.phase = "inflight";
    this.sent++;
    this.#ghosts.delete(d.liquidationId);
    this.#lastOffer.delete(d.liquidationId);
    o.exposure.reserve(d.liquidationId, d.perSymbolQty);
    const landedAt = sentAt + o.latencyMs;
    o.timeline.at(landedAt, () => {
      st.phase = "done";
      st.doneAt = landedAt;
      this.#done.push({ id: d.liquidationId, at: landedAt });
      const takenAt = this.#takenAt.get(d.liquidationId);
      this.#takenAt.delete(d.liquidationId);
      if (takenAt !== undefined && takenAt <= landedAt) {
        o.exposure.release(d.liquidationId);
        this.lost++;
        this.#queue.skipped(d.liquidationId, "taken_by_other");
        return;
      }
      // A replay has no venue to report the margin mode: the claim lands in the default one.
      o.positions.settleClaim(d.liquidationId, d.perSymbolQty, landedAt, "CROSS");
      o.won({ id: d.liquidationId, sentAt, landedAt, decision: d, liquidation });
    });
  }

  #markTaken(id: number): void {
    const now = this.#o.timeline.now;
    const own = this.#o.ownTakes.get(id);
    if (own !== undefined && own <= now) return;
    if (!this.#takenAt.has(id)) this.#takenAt.set(id, now);
  }
}

const ZERO = (): number => 0;
