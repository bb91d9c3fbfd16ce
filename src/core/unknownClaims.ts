/**
 * Claims whose outcome we could not see: an answer lost (timeout, dropped connection, a 5xx), an
 * intent a killed process left without an outcome, or a lean answer that applied the claim without
 * saying what it transferred. Each is settled, in bounded time, by what the venue says:
 *
 * 1. the private `liquidatorliquidations` push, when it comes;
 * 2. the venue's record of our claims (`GET /v1/client/liquidator_liquidations`, docs/protocol.md
 *    §10), read at once and then with backoff: a row says applied, with what; no row once
 *    `settleMs` have passed since the request (the venue has finished with it) says not applied;
 * 3. where the record cannot be read, the open list: the id still open with the quantities it had
 *    when we sent, `settleMs` later, was not applied;
 * 4. past `boundMs`, given up loudly (an error line, `claims_given_up_total`): the id is never
 *    claimed again, and what the positions show of it beyond what is ours is counted as ours, so
 *    nothing the venue assigned is left for nobody to close.
 *
 * Not applied, and still open: offered again (the venue's word allows a new claim). Applied: the
 * claim is settled as if its answer had come. What a give-up books is givenUpBookings.ts's.
 * Longer than most files: the four ways to settle share one set of pending claims and one timer.
 */
import { samePositions } from "../engine/liquidationPositions.js";
import type { Fill, LiquidationPosition } from "../engine/types.js";
import type { RecordedClaim } from "../venue/liquidatorRecord.js";
import type { SentClaim } from "./claimLife.js";
import type { CoreContext } from "./coreContext.js";
import { requested } from "./coreFold.js";
import type { Cancel, ClaimDriver } from "./corePort.js";
import { inferredFills, rebookBeside } from "./givenUpBookings.js";

export interface UnknownTimings {
  /** After the request, how long the venue may still be working on it: absence from its record (or an unchanged open list) before this says nothing. */
  settleMs: number;
  /** The longest an outcome stays unknown before it is given up. */
  boundMs: number;
  /** The first record read after a claim became unknown; later ones double up to `maxCheckMs`. */
  firstCheckMs: number;
  maxCheckMs: number;
}

interface Pending {
  id: number;
  attempt: number;
  /** `lean`: applied, fills unknown (booked at the request); `unknown`: may or may not have been applied. */
  kind: "unknown" | "lean";
  /** Wall ms the request went out (the intent's time). */
  sentAt: number;
  requested: Fill[];
  sentPositions: readonly LiquidationPosition[] | undefined;
  /** The intent's `notOurs`: the operator's own when it was sent. */
  notOurs: Readonly<Record<string, number>> | undefined;
  checks: number;
  dueAt: number;
  /** Wall ms this process took it over (a restart, an election): a give-up waits for positions from then on too. */
  adoptedAt?: number;
}

export interface SettleHook {
  settle(st: { id: number; attempt: number }, fills: Fill[], venueTs: number, result: "accepted" | "confirmed"): void;
}

export class UnknownClaims {
  readonly #c: CoreContext;
  readonly #t: UnknownTimings;
  readonly #driver: ClaimDriver;
  readonly #pending = new Map<number, Pending>();
  #life: SettleHook | undefined;
  #timer: Cancel | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #reading = false;
  /** The record cannot be read on this venue (no such route): the open list and the bound settle alone. */
  #recordUnavailable = false;

  readonly #kick: (symbol: string) => void;
  readonly #ordersWorking: (symbol: string) => boolean;

  /**
   * `kick`: a booking changed on `symbol` (confirmed, or given up): the unwinder looks again.
   * `ordersWorking`: an order of ours is out on `symbol` (what is held moves without a record yet).
   */
  constructor(
    c: CoreContext,
    timings: UnknownTimings,
    driver: ClaimDriver,
    kick: (symbol: string) => void,
    ordersWorking: (symbol: string) => boolean,
  ) {
    this.#c = c;
    this.#t = timings;
    this.#driver = driver;
    this.#kick = kick;
    this.#ordersWorking = ordersWorking;
  }

  /** Set once the claim life exists (they call each other). */
  bind(life: SettleHook): void {
    this.#life = life;
  }

  get count(): number {
    return this.#pending.size;
  }

  has(id: number): boolean {
    return this.#pending.has(id);
  }

  /** A claim that left and whose outcome is not known (or whose fills are not). */
  track(st: SentClaim, kind: Pending["kind"]): void {
    this.#add({
      id: st.id,
      attempt: st.attempt,
      kind,
      sentAt: st.sentAt,
      requested: requested({ limitPrice: st.decision.limitPrice, perSymbolQty: st.decision.perSymbolQty }),
      sentPositions: st.sentPositions,
      notOurs: this.#c.fold.claims.get(st.id)?.intent.notOurs,
      checks: 0,
      dueAt: this.#c.port.now() + this.#t.firstCheckMs,
    });
  }

  /**
   * The journal's open claims (a restart, an election): intents with no final outcome. Their
   * reservations are made again: the positions they may have brought count until settled.
   */
  restore(): void {
    const { fold, exposure, port } = this.#c;
    for (const [id, c] of fold.claims) {
      if (c.givenUp === true || this.#pending.has(id)) continue;
      const lean = c.provisional !== undefined;
      if (!lean) exposure.reserve(id, c.intent.perSymbolQty);
      this.#add({
        id,
        attempt: c.intent.attempt ?? 1,
        kind: lean ? "lean" : "unknown",
        sentAt: c.intent.at,
        requested: requested(c.intent),
        sentPositions: c.intent.open,
        notOurs: c.intent.notOurs,
        checks: 0,
        dueAt: port.now(),
        adoptedAt: port.now(),
      });
    }
  }

  /** The venue said the claim applied, with these fills (`source`: push or record). */
  confirm(id: number, fills: Fill[], venueTs: number, source: "push" | "record"): void {
    const p = this.#pending.get(id);
    if (p === undefined) return this.#late(id, fills, venueTs, source);
    this.#pending.delete(id);
    this.#gauge();
    const { port, observer, logger } = this.#c;
    if (p.kind === "unknown") {
      (this.#life as SettleHook).settle(p, fills, venueTs, "confirmed");
      observer.result("confirmed", "none", undefined);
      return;
    }
    // Booked at its request already: the fills correct the booking (and what a give-up beside it inferred).
    const was = this.#c.fold.claims.get(id)?.provisional ?? [];
    this.#c.record({ t: "outcome", id, at: port.now(), result: "confirmed", fills, venueTs, attempt: p.attempt });
    rebookBeside(this.#c, id, was, fills);
    for (const f of fills) observer.feeEarned(f.symbol, f.fee);
    observer.settled(id, fills, venueTs);
    logger.info({ id, source }, "lean claim's fills known");
    for (const symbol of new Set([...p.requested, ...fills].map((f) => f.symbol))) this.#kick(symbol);
  }

  /** The venue's word on a claim given up: its booking (what the positions showed) is corrected to it. */
  #late(id: number, fills: Fill[], venueTs: number, source: "push" | "record"): void {
    const c = this.#c.fold.claims.get(id);
    if (c?.givenUp !== true) return;
    const { port, observer, logger } = this.#c;
    const attempt = c.intent.attempt ?? 1;
    const was = c.provisional ?? [];
    this.#c.record({ t: "outcome", id, at: port.now(), result: "confirmed", fills, venueTs, attempt });
    rebookBeside(this.#c, id, was, fills);
    for (const f of fills) observer.feeEarned(f.symbol, f.fee);
    observer.settled(id, fills, venueTs);
    observer.changed();
    logger.warn({ id, source }, "a claim given up is confirmed after all: its booking follows the venue");
    for (const symbol of new Set([...Object.keys(c.intent.perSymbolQty), ...fills.map((f) => f.symbol)])) this.#kick(symbol);
  }

  /** After an open-list snapshot requested at `requestedAt` (the fallback where the record cannot be read). */
  openList(open: (id: number) => { positions: readonly LiquidationPosition[] } | undefined, requestedAt: number): void {
    for (const p of [...this.#pending.values()]) {
      if (p.kind !== "unknown" || p.sentPositions === undefined || requestedAt - p.sentAt < this.#t.settleMs) continue;
      const now = open(p.id);
      if (now !== undefined && samePositions(now.positions, p.sentPositions)) this.#notApplied(p, "open list");
    }
  }

  #add(p: Pending): void {
    this.#pending.set(p.id, p);
    this.#gauge();
    this.#arm();
  }

  #gauge(): void {
    this.#c.observer.unknown(this.#pending.size);
  }

  /** The timer for the earliest check due. */
  #arm(): void {
    let due = Number.POSITIVE_INFINITY;
    for (const p of this.#pending.values()) due = Math.min(due, p.dueAt);
    if (due === Number.POSITIVE_INFINITY || this.#reading || due >= this.#timerAt) return;
    this.#timer?.();
    this.#timerAt = due;
    this.#timer = this.#c.port.schedule(Math.max(0, due - this.#c.port.now()), () => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      void this.#check();
    });
  }

  async #check(): Promise<void> {
    const { port, logger } = this.#c;
    if (this.#pending.size === 0) return;
    this.#reading = true;
    try {
      let from = Number.POSITIVE_INFINITY;
      for (const p of this.#pending.values()) from = Math.min(from, p.sentAt);
      const read = this.#recordUnavailable ? undefined : await port.readRecord(from - 60_000, port.now() + 60_000);
      if (read !== undefined && !read.ok && read.permanent) {
        this.#recordUnavailable = true;
        logger.warn(
          { reason: read.reason },
          "the venue's record of our claims cannot be read: unknown claims are settled by the open list, or given up",
        );
      }
      const now = port.now();
      const rows = read?.ok === true ? indexRows(read.claims) : undefined;
      // A claim not among the rows read says "not applied" only if every row could be read.
      const whole = read?.ok === true && (read.unreadRows ?? 0) === 0;
      for (const p of [...this.#pending.values()]) {
        if (this.#pending.get(p.id) !== p) continue; // settled meanwhile (a push)
        const row = rows?.get(p.id);
        if (row !== undefined) this.confirm(p.id, row.fills, row.timestamp, "record");
        else if (whole && p.kind === "unknown" && (read as { asOf: number }).asOf - p.sentAt >= this.#t.settleMs)
          this.#notApplied(p, "the venue's record");
        else if (now - p.sentAt >= this.#t.boundMs && (this.#readable(p) || now >= this.#graceEnd(p))) this.#giveUp(p);
        else if (now - p.sentAt >= this.#t.boundMs) {
          // What the account holds is about to move or be told: inferred from it then, not now.
          port.requestPositions();
          p.dueAt = Math.min(now + this.#t.firstCheckMs, this.#graceEnd(p));
        } else {
          p.checks++;
          p.dueAt = now + Math.min(this.#t.maxCheckMs, this.#t.firstCheckMs * 2 ** p.checks);
        }
      }
    } finally {
      this.#reading = false;
      this.#arm();
    }
  }

  #notApplied(p: Pending, source: string): void {
    const { port, exposure, logger } = this.#c;
    this.#pending.delete(p.id);
    this.#gauge();
    if (exposure.release(p.id)) this.#driver.freed();
    this.#c.record({ t: "outcome", id: p.id, at: port.now(), result: "not_accepted", attempt: p.attempt });
    logger.info({ id: p.id, source }, "unknown claim outcome settled: not applied, the id may be claimed again");
    const open = this.#driver.open(p.id);
    if (open !== undefined) this.#driver.offer(open);
  }

  /** Past the bound: never claimed again; what the positions show of it beyond what is ours is booked as ours. */
  #giveUp(p: Pending): void {
    const { port, exposure, observer, logger } = this.#c;
    this.#pending.delete(p.id);
    this.#gauge();
    // Applied, booked at its request: the booking follows what the positions show (never more than asked).
    const fills = inferredFills(this.#c, p, p.kind === "lean");
    exposure.release(p.id);
    this.#c.record({ t: "outcome", id: p.id, at: port.now(), result: "given_up", fills, attempt: p.attempt });
    observer.givenUp();
    observer.changed();
    for (const r of p.requested) this.#kick(r.symbol);
    logger.error(
      { id: p.id, kind: p.kind, since: p.sentAt, inferred: fills.map((f) => [f.symbol, f.qty]) },
      "claim outcome given up: the venue never said; the id is never claimed again, and what the positions show of it is counted as ours",
    );
  }

  /**
   * Until when a give-up waits for positions it can infer from: half a check interval past the bound,
   * or past this process's start when it began past the bound (its first reports are owed then).
   */
  #graceEnd(p: Pending): number {
    return Math.max(p.sentAt + this.#t.boundMs, p.adoptedAt ?? Number.NEGATIVE_INFINITY) + this.#t.maxCheckMs / 2;
  }

  /**
   * What the account holds of `p`'s symbols says what it did: no report owed (a claim's quantity
   * waiting for one, or one in the very millisecond of a claim), no order of ours out, no claim in
   * flight (reserved, and not itself an unknown: those are told apart by `notOurs`).
   */
  #readable(p: Pending): boolean {
    const { positions, exposure } = this.#c;
    if (!positions.known) return true;
    for (const { symbol } of p.requested) {
      if (positions.pending(symbol) !== 0 || positions.uncertain(symbol) || this.#ordersWorking(symbol)) return false;
      let unknowns = 0;
      for (const q of this.#pending.values()) if (exposure.reservation(q.id)?.[symbol] !== undefined) unknowns++;
      if (exposure.reservationsOn(symbol) > unknowns) return false;
    }
    return true;
  }
}

/** The record's claims by id (several rows of one id: summed per symbol). */
function indexRows(claims: readonly RecordedClaim[]): Map<number, RecordedClaim> {
  const out = new Map<number, RecordedClaim>();
  for (const c of claims) {
    const held = out.get(c.liquidationId);
    if (held === undefined) out.set(c.liquidationId, { ...c, fills: [...c.fills] });
    else held.fills.push(...c.fills);
  }
  return out;
}
