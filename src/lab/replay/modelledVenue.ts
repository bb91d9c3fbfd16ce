/**
 * The venue of a replay, as one variant's trading core meets it (docs/policy-lab.md): the core is
 * the daemon's own (core/buildCore.ts); this is its port, in the replay's virtual time. What a
 * capture cannot show is modelled:
 *
 * - the venue's answer lands `latencyMs` after the send (the latency measured in the capture), the
 *   claim applied at the marks of that moment (fee: the liquidation's rate of that notional);
 * - the claim loses (-1202) if the capture shows the liquidation taken or changed by someone else
 *   while it was out; changes after the recording account's own accepted claim are that claim's;
 * - a liquidation the recording account's own claim took stays open to the variant (as last
 *   offered) until the variant claims it or forgets it: without that claim it would have stayed on
 *   the venue (rivals' later interest in it cannot be known from the capture).
 *
 * No journal (records change the core's state and are written nowhere), no record of claims to read
 * (every answer lands), one margin mode (cross: a claim's quantity is placed at once).
 */
import type { Cancel, ClaimAnswer, CorePort } from "../../core/corePort.js";
import type { MarkBook } from "../../engine/marks.js";
import type { ClaimDecision } from "../../engine/policy.js";
import type { Liquidation } from "../../engine/types.js";
import { VENUE_CODES, VenueError } from "../../venue/errors.js";
import { GONE_CODE } from "../../venue/failureTable.js";
import type { Timeline } from "./timeline.js";

/** The liquidator fee rate of `symbol` in the liquidation as sent (the last position of it, 0 when none). */
function feeRate(liquidation: Liquidation, symbol: string): number {
  const ps = liquidation.positions;
  for (let i = ps.length - 1; i >= 0; i--) {
    const p = ps[i] as Liquidation["positions"][number];
    if (p.symbol === symbol) return p.liquidatorFee ?? 0;
  }
  return 0;
}

export interface ModelledVenueOptions {
  timeline: Timeline;
  /** The capture's open book, shared by the variants (read only). */
  book: { get(id: number): Liquidation | undefined };
  marks: MarkBook;
  /** Send → answer, ms. */
  latencyMs: number;
  /** Ids the recording account's own claims took, with their send time. */
  ownTakes: ReadonlyMap<number, number>;
  /** A claim lost to a rival (the variant counts it as a skip `taken_by_other`). */
  lost(id: number): void;
}

interface Out {
  d: ClaimDecision;
  liquidation: Liquidation;
  sentAt: number;
}

const GONE = VENUE_CODES.get(GONE_CODE);

export class ModelledVenue {
  readonly #o: ModelledVenueOptions;
  /** Claims out, by id: what the answer is made of. */
  readonly #out = new Map<number, Out>();
  /** When the capture showed an in-flight claim's liquidation taken or changed by someone else. */
  readonly #takenAt = new Map<number, number>();
  /** The last offer of each id on the book not sent for yet (the recording account's take is known when it leaves). */
  readonly #lastOffer = new Map<number, Liquidation>();
  /** Ids taken by the recording account, gone from the capture's book but still open to this variant, since when. */
  readonly #ghosts = new Map<number, { liquidation: Liquidation; since: number }>();
  sent = 0;
  lost = 0;
  readonly port: CorePort;

  constructor(o: ModelledVenueOptions) {
    this.#o = o;
    const t = o.timeline;
    this.port = {
      intent: () => undefined,
      append: () => undefined,
      recover: () => true,
      mayLead: () => true,
      sendClaim: (body, _dryRun, answered) => this.#send(body.liquidation_id, answered),
      // The insurance fund's claims are modelled alike: the answer after the latency, at the fund's discount.
      sendFundClaim: (body, _dryRun, answered) => this.#send(body.claim_id, answered),
      placeOrder: () => Promise.reject(new Error("the lab fills its unwinds itself (unwindModel.ts)")),
      readRecord: () => Promise.resolve({ ok: false, reason: "a replay has no venue record", permanent: true }),
      requestPositions: () => undefined,
      schedule: (ms, f): Cancel => {
        let live = true;
        t.at(t.now + ms, () => {
          if (live) f();
        });
        return () => {
          live = false;
        };
      },
      now: () => t.now,
      monotonic: () => t.now,
      marginMode: "CROSS",
    };
  }

  /** The book the variant's desk reads: the capture's, plus the recording account's takes still open to it. */
  readonly book = {
    get: (id: number): Liquidation | undefined => this.#o.book.get(id) ?? this.#ghosts.get(id)?.liquidation,
    remove: (id: number): boolean => this.#ghosts.delete(id),
  };

  /** An offer seen by the variant (kept: whether the recording account took it is known when it leaves). */
  offered(liquidation: Liquidation): void {
    this.#lastOffer.set(liquidation.liquidationId, liquidation);
  }

  /**
   * The id left the capture's book: true when it stays open to this variant (the recording account
   * took it before the variant sent for it), else the desk cancels it.
   */
  left(id: number, busy: boolean): boolean {
    const own = this.#o.ownTakes.has(id) ? this.#lastOffer.get(id) : undefined;
    this.#lastOffer.delete(id);
    if (own === undefined || busy) return false;
    this.#ghosts.set(id, { liquidation: own, since: this.#o.timeline.now });
    return true;
  }

  /** Ghosts older than `cutoff` are forgotten (the daemon's sweep); their ids are cancelled. */
  forgetGhosts(cutoff: number, cancel: (id: number) => void): void {
    for (const [id, g] of this.#ghosts) {
      if (g.since >= cutoff) continue;
      this.#ghosts.delete(id);
      cancel(id);
    }
  }

  isGhost(id: number): boolean {
    return this.#ghosts.has(id);
  }

  /** The desk took a claim: what its answer will be made of. */
  taken(d: ClaimDecision, liquidation: Liquidation): void {
    const id = d.liquidationId;
    this.#out.set(id, { d, liquidation, sentAt: this.#o.timeline.now });
    this.#ghosts.delete(id);
    this.#lastOffer.delete(id);
    this.sent++;
  }

  /** The liquidation changed (or left) while ours is out: someone else took part of it, unless it was the recording account. */
  busy(id: number): void {
    if (!this.#out.has(id)) return;
    const now = this.#o.timeline.now;
    const own = this.#o.ownTakes.get(id);
    if (own !== undefined && own <= now) return;
    if (!this.#takenAt.has(id)) this.#takenAt.set(id, now);
  }

  #send(id: number, answered: (a: ClaimAnswer) => void): void {
    const out = this.#out.get(id);
    const t = this.#o.timeline;
    if (out === undefined) return answered({ error: new Error(`the lab did not see claim ${id} taken`) });
    const landedAt = out.sentAt + this.#o.latencyMs;
    t.at(landedAt, () => {
      this.#out.delete(id);
      const takenAt = this.#takenAt.get(id);
      this.#takenAt.delete(id);
      if (takenAt !== undefined && takenAt <= landedAt) {
        this.lost++;
        this.#o.lost(id);
        const error = new VenueError({
          venueCode: GONE_CODE,
          status: GONE?.status ?? 400,
          venueMessage: "taken by a rival (modelled)",
          endpoint: "/v1/liquidation",
        });
        return answered({ error });
      }
      answered({ sent: true, result: this.#result(out, landedAt) });
    });
  }

  /** The venue transfers at the mark (docs/protocol.md §4): the fee is the fee rate of that notional. */
  #result(out: Out, at: number): { liquidation_id: number; timestamp: number; positions_by_perp: object[] } {
    const { d, liquidation } = out;
    const rows: { symbol: string; position_qty: number; transfer_price: number; abs_liquidator_fee: number }[] = [];
    for (const symbol of Object.keys(d.perSymbolQty)) {
      const qty = d.perSymbolQty[symbol] as number;
      const price = this.#o.marks.price(symbol) ?? d.limitPrice[symbol] ?? 0;
      rows.push({
        symbol,
        position_qty: qty,
        transfer_price: price,
        abs_liquidator_fee: Math.abs(qty) * price * feeRate(liquidation, symbol),
      });
    }
    return { liquidation_id: d.liquidationId, timestamp: at, positions_by_perp: rows };
  }
}
