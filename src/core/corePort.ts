/**
 * What the trading core is given: its one port for effects (the journal, the venue, timers), the
 * driver that runs its claim queue (the claimer's pump: ranks, permits, pauses), and where it
 * reports (metrics, logs). The live daemon passes the store, the REST client and real timers; the
 * lab a modelled venue and its virtual timeline; the claim rehearsal builds nothing of this at all.
 */

import type { PauseReason } from "../engine/pauseReasons.js";
import type { Supply } from "../engine/supply.js";
import type { Fill, Liquidation, MarginMode } from "../engine/types.js";
import type { RecordedClaim } from "../venue/liquidatorRecord.js";
import type { OrderAck, OrderRequest } from "../venue/orderSchemas.js";
import type { ClaimRequest, ClaimResult } from "../venue/restSchemas.js";
import type { FundClaimRequest } from "../venue/supplySchemas.js";
import type { IntentRecord, JournalRecord, OrderIntentRecord } from "./journalRecords.js";

/** A scheduled callback that can be called off. */
export type Cancel = () => void;

/** What became of a claim sent: the venue's answer, a dry run (nothing left), or an error (a refusal, a lost answer). */
export type ClaimAnswer = { sent: true; result: ClaimResult } | { sent: false; dryRun: true } | { error: unknown };

/**
 * The venue's record of our claims over a window: what it lists as of `asOf` (local ms the read was
 * made), or that it could not be read (no such route, an error). `unreadRows`: rows left out because
 * they could not be read; any of them may be a claim of ours, so absence from such a read proves nothing.
 */
export type RecordRead =
  | { ok: true; claims: RecordedClaim[]; asOf: number; unreadRows?: number }
  | { ok: false; reason: string; permanent: boolean };

export interface CorePort {
  /**
   * An intent, durable before its request leaves: void once written (the file), a promise (the
   * database), with the store's attempt number when it counts them. Throws (rejects) when it
   * cannot be written: then nothing is sent.
   */
  intent(record: IntentRecord | OrderIntentRecord): number | undefined | Promise<number | undefined>;
  /** A later record, in order; throws when the store cannot write now (the core keeps it, retries). */
  append(record: JournalRecord): void;
  /** Forget a sticky write failure so the next write tries again. */
  recover(): boolean;
  /** Whether this replica may send now. */
  mayLead(): boolean;
  /**
   * The single point where a claim leaves (docs/architecture.md rule 4): `dryRun` as decided with the
   * intent. `answered` is called once, when the venue answers (live: a promise's turn; the lab: the
   * modelled venue's moment in virtual time).
   */
  sendClaim(body: ClaimRequest, dryRun: boolean, answered: (answer: ClaimAnswer) => void): void;
  /**
   * The same for a claim of the insurance fund's row on its own endpoint (core/fundSupply.ts,
   * `POST /v1/claim_insurance_fund`). Absent: a world without the fund's route (such a claim is
   * answered with an error, never sent elsewhere).
   */
  sendFundClaim?(body: FundClaimRequest, dryRun: boolean, answered: (answer: ClaimAnswer) => void): void;
  /** Place an order (reduce-only unwinds). */
  placeOrder(body: OrderRequest): Promise<OrderAck>;
  /** The venue's record of our claims applied in [startT, endT] (venue ms). */
  readRecord(startT: number, endT: number): Promise<RecordRead>;
  /** Ask for a positions read now (its answer comes back as a positions snapshot). */
  requestPositions(): void;
  /**
   * The venue counted more margin than the model (-1101): read what it counts by (live: each
   * symbol's leverage, then the positions). Absent: the positions alone.
   */
  rereadAccount?(): void;
  /** Run `f` after `ms` on the core's clock. */
  schedule(ms: number, f: () => void): Cancel;
  /** Wall clock (the journal, decisions), ms. */
  now(): number;
  /** Monotonic clock (latencies), ms. */
  monotonic(): number;
  /**
   * A venue of one margin mode (the lab's model): a claim lands in it at once. Absent (the real
   * venue): the next report of the symbol says which position took it.
   */
  readonly marginMode?: MarginMode;
}

/** The claim queue's side of the claimer: what the core asks of it after an answer. */
export interface ClaimDriver {
  /** Re-decide the id from the open list after `ms` (a fresh decision on fresh marks). */
  retryLater(id: number, ms: number): void;
  /** Back to pending at once (the claim did not leave): ranked with `expectedFee`. */
  requeue(id: number, expectedFee: number, marginNeed: number | undefined): void;
  /** Pause claiming for a reason; `forMs` resumes by itself. */
  pause(reason: PauseReason, on: boolean, forMs?: number): void;
  /** Hold every claim until this wall-clock time (rate limited). */
  holdUntil(at: number): void;
  /** The open liquidation of an id (the open book). */
  open(id: number): Liquidation | undefined;
  /** Offer a liquidation again (an unknown settled as not applied, still open). */
  offer(liquidation: Liquidation): void;
  /** Margin or exposure was freed (a reservation dropped, a position shrank, collateral rose). */
  freed(): void;
  /** The id left the open book for good (gone -1202). */
  gone(id: number): void;
}

/** Metrics and logs of the core (no prom-client here). */
export interface CoreObserver {
  /** A claim left (not a dry run), of this supply. */
  submitted(supply: Supply): void;
  decisionLatency(seconds: number): void;
  result(result: string, code: string, latencySeconds: number | undefined): void;
  feeEarned(symbol: string, amount: number): void;
  /** A claim the venue applied transferred `fills` (markouts, capture, protections). */
  settled(id: number, fills: readonly Fill[], venueTs: number): void;
  /** A trade of our own order was recorded (`qty` signed), with the mark its order was priced on. */
  traded(symbol: string, qty: number, price: number, fee: number, mark: number): void;
  /** Unknown claims now (the `claims_unknown` gauge). */
  unknown(count: number): void;
  /** An unknown reached its bound unsettled (`claims_given_up_total`). */
  givenUp(): void;
  /** Something of ours or the P&L changed: the protections look again. */
  changed(): void;
}

export interface CoreLogger {
  debug?(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
