/**
 * The claimer in virtual time, for a replay. It follows the daemon's claimer (daemon/claimer.ts)
 * step for step where a replay can: every liquidation is decided by the engine's `decide()` through
 * the daemon's PolicyState, pending claims wait in the engine's RankingQueue, permits come at the
 * claims limiter's spacing (venue/limiters.ts `spacingFor`), each permit re-decides the best pending
 * claim on the marks and exposure of that moment (late binding), and exposure is reserved while a
 * claim is out. What a replay cannot know is modelled (README "Policy lab"):
 * - the venue's answer lands `latencyMs` after the send (the latency measured in the capture);
 * - the claim wins unless the capture shows the liquidation taken or changed by someone else before
 *   it lands. Changes after the recording account's own accepted claim are that claim's, not a rival's.
 */

import { SkipVerdicts } from "../daemon/skipVerdicts.js";
import type { Exposure } from "../engine/exposure.js";
import type { ClaimDecision, Decision } from "../engine/policy.js";
import type { PositionBook } from "../engine/positionBook.js";
import { RankingQueue } from "../engine/ranking.js";
import type { Liquidation } from "../engine/types.js";
import type { Timeline } from "./timeline.js";

type Phase = "pending" | "inflight" | "done";

interface IdState {
  phase: Phase;
  /** Virtual time the answer landed (done). */
  doneAt?: number;
  /** When the capture showed the liquidation taken or changed by someone else (while ours was out). */
  takenAt?: number;
}

/** A claim the modelled venue applied. */
export interface WonClaim {
  id: number;
  sentAt: number;
  landedAt: number;
  decision: ClaimDecision;
  /** Liquidator fee rate per symbol, from the liquidation as sent. */
  feeRates: Readonly<Record<string, number>>;
}

export interface VirtualClaimerOptions {
  decide: (liquidation: Liquidation, now: number) => Decision;
  book: { get(id: number): Liquidation | undefined };
  exposure: Exposure;
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
  readonly #queue = new RankingQueue<number>();
  readonly #ids = new Map<number, IdState>();
  readonly #skips = new SkipVerdicts();
  /** Finished ids in the order they finished (virtual time only moves forward), for the sweep. */
  #done: { id: number; at: number }[] = [];
  /** Finished long enough ago but still on the open list: forgotten once they leave it. */
  readonly #lingering = new Set<number>();
  #lastPermit = Number.NEGATIVE_INFINITY;
  #nonEmptySince = 0;
  #sweptAt = Number.NEGATIVE_INFINITY;
  /** Claims sent (a permit spent on a claim). */
  sent = 0;
  lost = 0;

  constructor(options: VirtualClaimerOptions) {
    this.#o = options;
  }

  /** Time of the next claims permit, Infinity while nothing is pending. */
  nextPermitAt(): number {
    if (this.#queue.size === 0) return Number.POSITIVE_INFINITY;
    return Math.max(this.#nonEmptySince, this.#lastPermit + this.#o.spacingMs);
  }

  offer(liquidation: Liquidation): void {
    const id = liquidation.liquidationId;
    const st = this.#ids.get(id);
    if (st !== undefined && st.phase !== "pending") {
      // Changed while ours is out: someone else took part of it, unless it was the recording account.
      if (st.phase === "inflight") this.#markTaken(id, st);
      return;
    }
    const now = this.#o.timeline.now;
    const d = this.#o.decide(liquidation, now);
    if (d.action === "skip") {
      this.#skipped(id, d.reason);
      if (st !== undefined) {
        this.#queue.remove(id);
        this.#ids.delete(id);
      }
      return;
    }
    this.#skips.delete(id);
    if (st === undefined) {
      if (this.#queue.size === 0) this.#nonEmptySince = now;
      this.#ids.set(id, { phase: "pending" });
      this.#queue.push(id, d.expectedFee, liquidation.timestamp, id);
    } else {
      this.#queue.update(id, d.expectedFee);
    }
  }

  cancel(id: number): void {
    this.#skips.delete(id);
    const st = this.#ids.get(id);
    if (st === undefined) return;
    if (st.phase === "inflight") return this.#markTaken(id, st);
    if (st.phase !== "pending") return;
    this.#queue.remove(id);
    this.#ids.delete(id);
  }

  retrySkipped(reasons?: ReadonlySet<string>): void {
    for (const id of this.#skips.ids(reasons)) {
      const liquidation = this.#o.book.get(id);
      if (liquidation !== undefined) this.offer(liquidation);
    }
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
    this.#skips.retain((id) => book.get(id) !== undefined);
  }

  /** One claims permit at the current virtual time: the best pending claim that still passes is sent. */
  permit(): void {
    const now = this.#o.timeline.now;
    this.#lastPermit = now;
    while (this.#queue.size > 0) {
      const top = this.#queue.pop();
      if (top === undefined) return;
      const id = top.liquidationId;
      const st = this.#ids.get(id);
      if (st === undefined || st.phase !== "pending") continue;
      const liquidation = this.#o.book.get(id);
      if (liquidation === undefined) {
        this.#ids.delete(id);
        this.#skipped(id, "gone");
        continue;
      }
      const d = this.#o.decide(liquidation, now);
      if (d.action === "skip") {
        this.#ids.delete(id);
        this.#skipped(id, d.reason);
        continue;
      }
      this.#send(d, st, liquidation, now);
      break;
    }
    if (this.#queue.size > 0) this.#nonEmptySince = now;
  }

  #send(d: ClaimDecision, st: IdState, liquidation: Liquidation, sentAt: number): void {
    const o = this.#o;
    st.phase = "inflight";
    this.sent++;
    o.exposure.reserve(d.liquidationId, d.perSymbolQty);
    const feeRates: Record<string, number> = {};
    for (const p of liquidation.positions) feeRates[p.symbol] = p.liquidatorFee;
    const landedAt = sentAt + o.latencyMs;
    o.timeline.at(landedAt, () => {
      st.phase = "done";
      st.doneAt = landedAt;
      this.#done.push({ id: d.liquidationId, at: landedAt });
      if (st.takenAt !== undefined && st.takenAt <= landedAt) {
        o.exposure.release(d.liquidationId);
        this.lost++;
        this.#skipped(d.liquidationId, "taken_by_other");
        return;
      }
      // A replay has no venue to report the margin mode: the claim lands in the default one.
      o.positions.settleClaim(d.liquidationId, d.perSymbolQty, landedAt, "CROSS");
      o.won({ id: d.liquidationId, sentAt, landedAt, decision: d, feeRates });
    });
  }

  #markTaken(id: number, st: IdState): void {
    const now = this.#o.timeline.now;
    const own = this.#o.ownTakes.get(id);
    if (own !== undefined && own <= now) return;
    st.takenAt ??= now;
  }

  #skipped(id: number, reason: string): void {
    if (this.#skips.set(id, reason)) this.#o.skipped(reason);
  }
}
