/**
 * The world of the core's model-based tests: the model venue, virtual time, one daemon process at a
 * time on a store that outlives it (a file journal's directory, or a PostgreSQL account), and what
 * the test does to them — offers, permits, answers, deliveries in any order, lost pushes, write
 * failures, deposits, kill -9 and restart. `check` states the invariants; `stop` is the safe stop.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MARGIN_SKIPS } from "../../../src/core/claimDesk.js";
import { CORE_TIMINGS_FOR_TESTS } from "../../../src/core/tradingCore.js";
import type { JournalReplay } from "../../../src/store/journalReplay.js";
import type { StateStore } from "../../../src/store/stateStore.js";
import { type CoreProcess, type ProcessWorld, startProcess } from "./coreProcess.js";
import { type ClaimFate, MARKET, type ModelSymbol, ModelVenue, round, SYMBOLS } from "./modelVenue.js";
import { turns, VirtualClock } from "./virtualClock.js";

/** Opens the world's store (a fresh process's view of it) and reads its journal. */
export type Backend = () => Promise<{ store: StateStore; replay: JournalReplay }>;

/** The venue answers a request at the latest this long after it was sent (it never sits on one past the claim's settle time). */
const VENUE_ANSWERS_WITHIN_MS = 5_000;
/** The REST feed reads positions and the open list this often (daemon/feeds/restFeed.ts). */
const POLL_MS = 30_000;

export class ModelWorld implements ProcessWorld {
  readonly clock = new VirtualClock(1_700_000_000_000);
  readonly venue = new ModelVenue(this.clock);
  collateral = 10_000;
  unwinding = true;
  restarts = 0;
  p!: CoreProcess;
  readonly #open: Backend;
  readonly #sentAt = new Map<object, number>();

  private constructor(open: Backend) {
    this.#open = open;
  }

  static async start(open: Backend): Promise<ModelWorld> {
    const w = new ModelWorld(open);
    await w.#boot();
    return w;
  }

  /** Virtual time the running process started. */
  #bootedAt = 0;

  async #boot(): Promise<void> {
    this.#bootedAt = this.clock.now;
    const { store, replay } = await this.#open();
    this.p = startProcess(this, store, replay);
    // The daemon's reads of the account and the open list at start, and every 30 s.
    await this.reconcile();
    this.#poll();
  }

  /** Every promise the last step started has run (the database's intents answered). */
  async settle(): Promise<void> {
    const deadline = Date.now() + 20_000;
    await turns(2);
    while (this.p.store.pending > 0) {
      if (Date.now() > deadline) throw new Error("the store's intents did not answer within 20 s");
      await new Promise((resolve) => setTimeout(resolve, 1)); // a timer turn for the store's I/O between two looks
      await turns(2);
    }
  }

  // ── what the test does ─────────────────────────────────────────────────────────────────────────

  /** A liquidation is listed and pushed (or its push lost: the reconcile finds it). */
  async offer(id: number, symbol: ModelSymbol, steps: number, pushed: boolean): Promise<void> {
    this.venue.list(id, symbol, steps);
    if (pushed) this.#offer(id);
    await this.settle();
  }

  /**
   * An id seen before is pushed again: still open, a rival took part of it (its new quantities); gone,
   * an old push delivered again (a reconnect's replay) — never to be claimed twice.
   */
  async repush(id: number): Promise<void> {
    if (this.venue.open.has(id)) {
      if (this.venue.rivalTakes(id)) this.#offer(id);
    } else {
      const listed = this.venue.listed.get(id);
      if (listed !== undefined) this.#push(id, listed);
    }
    await this.settle();
  }

  /** One permit of the claims limiter (the claimer's pump takes the best pending claim). */
  async permit(): Promise<void> {
    if (this.p.desk.ready()) this.p.desk.take();
    await this.settle();
  }

  async answer(k: number, fate: ClaimFate, dropPush: boolean): Promise<void> {
    this.venue.answer(k, fate, dropPush);
    await this.settle();
  }

  /** Deliver the `k`-th thing pushed (any order: a position report may overtake the fill that made it), or drop it. */
  async deliver(k: number, drop: boolean): Promise<void> {
    const { pushed } = this.venue;
    if (pushed.length === 0) return;
    const [e] = pushed.splice(k % pushed.length, 1);
    if (e?.kind === "answer" && e.gen === this.clock.gen) {
      e.reply(drop);
      return this.settle();
    }
    if (e === undefined || drop || e.gen !== this.clock.gen) return;
    const { core, unwinder } = this.p;
    if (e.kind === "assignment") {
      core.assignment({
        liquidationId: e.id,
        timestamp: e.at,
        type: "LIQUIDATED",
        assigned: 0,
        positionsByPerp: e.fills.map((f) => ({
          symbol: f.symbol,
          positionQty: f.qty,
          transferPrice: f.price,
          absLiquidatorFee: f.fee,
          costPositionTransfer: f.qty * f.price,
          liquidatorFee: 0.02,
        })),
      });
    } else if (e.kind === "position") core.positionsPush([{ symbol: e.symbol, positionQty: e.qty }], e.at);
    else if (e.kind === "execution") unwinder.onExecutionReport(e.report);
    await this.settle();
  }

  /** The REST feed's reads: positions, and the open list (new ids offered, gone ones cancelled). */
  async reconcile(): Promise<void> {
    this.#read();
    await this.settle();
  }

  #read(): void {
    const { core, desk, book } = this.p;
    core.positionsSnapshot(this.venue.positions(), this.clock.now);
    for (const id of [...book.keys()]) {
      if (this.venue.open.has(id)) continue;
      book.delete(id);
      desk.cancel(id);
    }
    // As ingest.ts does after a reconcile: the open-list settlement, the offers, then the sweep.
    core.openList((id) => book.get(id), this.clock.now);
    for (const id of this.venue.open.keys()) this.#offer(id);
    desk.sweep((id) => book.has(id));
  }

  /** The REST feed's loops: positions and the open list every 30 s of the process's life. */
  #poll(): void {
    this.clock.schedule(POLL_MS, () => {
      this.#read();
      this.#poll();
    });
  }

  async advance(ms: number): Promise<void> {
    // The venue does not sit on a request: it is answered before the claim's settle time has passed.
    for (const r of [...this.venue.requests]) {
      if (!this.#sentAt.has(r)) this.#sentAt.set(r, this.clock.now);
      if (this.clock.now + ms - (this.#sentAt.get(r) as number) >= VENUE_ANSWERS_WITHIN_MS) {
        this.venue.answer(this.venue.requests.indexOf(r), "full", false);
        await this.settle();
      }
    }
    for (const e of [...this.venue.pushed])
      if (e.kind === "answer" && this.clock.now + ms - e.at >= VENUE_ANSWERS_WITHIN_MS) {
        this.venue.pushed.splice(this.venue.pushed.indexOf(e), 1);
        if (e.gen === this.clock.gen) e.reply(false);
        await this.settle();
      }
    await this.clock.advance(ms, () => this.settle());
  }

  async diskFails(on: boolean): Promise<void> {
    if (on) this.p.store.failing = true;
    else this.p.store.heal();
    await this.settle();
  }

  async deposit(amount: number): Promise<void> {
    this.collateral = Math.max(0, this.collateral + amount);
    // The private `balance` push (ingest.ts): margin skips are decided again when collateral rises.
    if (amount > 0) this.p.desk.retrySkipped(MARGIN_SKIPS);
    await this.settle();
  }

  /** kill -9, then a new process on the same store (its state from the journal alone). */
  async restart(): Promise<void> {
    const dead = this.p;
    this.restarts++;
    this.clock.kill();
    await dead.store.kill();
    await dead.unwinder.stop();
    this.venue.restartStreams();
    await this.#boot();
  }

  /** Offer an open liquidation to the process as a push would. */
  #offer(id: number): void {
    const open = this.venue.open.get(id);
    if (open !== undefined) this.#push(id, open);
  }

  #push(id: number, open: readonly { symbol: string; qty: number }[]): void {
    const liq = {
      liquidationId: id,
      timestamp: this.clock.now,
      positions: open.map((p) => ({ symbol: p.symbol, positionQty: p.qty, liquidatorFee: 0.02 })),
    };
    this.p.book.set(id, liq);
    this.p.desk.offer(liq, this.clock.now);
  }

  // ── what must hold ─────────────────────────────────────────────────────────────────────────────

  /** The invariants after every step; `timed`: after time moved (the bound on unknowns applies). */
  check(timed: boolean): void {
    const { venue, p } = this;
    const fold = p.core.fold;
    if (venue.violations.length > 0) throw new Error(venue.violations.join("; "));
    for (const symbol of SYMBOLS) {
      const ours = fold.holdings.ours(symbol, "CROSS") + fold.holdings.unplaced(symbol);
      // (d) open P&L lots equal what is ours.
      const lots = fold.ledger.heldAt(symbol);
      if (Math.abs(lots - ours) > 1e-9) throw new Error(`(d) ${symbol}: lots ${lots} ≠ ours ${ours}`);
      // (a) what the venue assigned through our claims and our orders did not close is ours, up to
      // what is still moving (claims not settled, orders not over).
      let moving = 0;
      for (const c of fold.claims.values()) moving += Math.abs(c.intent.perSymbolQty[symbol] ?? 0);
      for (const o of fold.orders.values()) if (o.intent.symbol === symbol) moving += o.intent.quantity;
      const truth = venue.trueOurs(symbol);
      if (Math.abs(truth - ours) > moving + 1e-9)
        throw new Error(`(a) ${symbol}: the venue holds ${truth} of ours, the core counts ${ours} (${moving} moving)`);
    }
    // (h) what may be closed now is being closed, or will be looked at again (a kick was not missed).
    const forgotten = p.unwinder.forgotten();
    if (forgotten.length > 0) throw new Error(`(h) nothing will close ${JSON.stringify(forgotten)}`);
    // (e) reservations are the claims in flight or of unknown outcome.
    let unsettled = 0;
    for (const c of fold.claims.values()) if (c.provisional === undefined && c.givenUp !== true) unsettled++;
    if (p.store.pending === 0 && p.exposure.reservationCount !== unsettled)
      throw new Error(`(e) ${p.exposure.reservationCount} reservations, ${unsettled} claims unsettled`);
    // (g) nothing stays unknown past its bound (checked with backoff: one check interval of slack),
    // counted from this process's start for a claim it found past the bound already.
    if (timed)
      for (const c of fold.claims.values()) {
        const due = Math.max(c.intent.at + CORE_TIMINGS_FOR_TESTS.boundMs, this.#bootedAt);
        if (c.givenUp !== true && this.clock.now - due > CORE_TIMINGS_FOR_TESTS.maxCheckMs + 1_000)
          throw new Error(`(g) claim ${c.intent.id} unsettled ${(this.clock.now - c.intent.at) / 1000} s after it was sent`);
      }
  }

  /**
   * The safe stop with a cooperating venue: no new claims, every fault healed, everything delivered;
   * first everything settled with unwinding held (what is ours must then be exactly what the venue
   * assigned and we did not close), then unwinding until flat. Bounded in virtual time.
   */
  async stop(): Promise<void> {
    this.venue.recordDown = false;
    this.venue.nextOrderFate = "fill";
    await this.diskFails(false);
    this.unwinding = false;
    const deliverAll = async (): Promise<void> => {
      while (this.venue.requests.length > 0) await this.answer(0, "full", false);
      while (this.venue.pushed.length > 0) await this.deliver(0, false);
    };
    const deadline = this.clock.now + CORE_TIMINGS_FOR_TESTS.boundMs + 120_000;
    while (this.clock.now < deadline && (this.p.core.unsettledClaims() > 0 || this.p.core.fold.orders.size > 0)) {
      await deliverAll();
      await this.advance(5_000);
      await this.reconcile();
    }
    await deliverAll();
    this.check(true);
    if (this.p.core.unsettledClaims() > 0) throw new Error(`(g) ${this.p.core.unsettledClaims()} claims unsettled at the stop`);
    for (const symbol of SYMBOLS) {
      const f = this.p.core.fold;
      const ours = round(f.holdings.ours(symbol, "CROSS") + f.holdings.unplaced(symbol));
      if (ours !== this.venue.trueOurs(symbol))
        throw new Error(`(a) settled: ${symbol} ours ${ours}, the venue assigned and we did not close ${this.venue.trueOurs(symbol)}`);
    }
    // (f) unwinding on: flat in bounded time, the operator's own untouched.
    this.unwinding = true;
    this.p.unwinder.kickAll();
    const flatBy = this.clock.now + 120_000;
    const flat = (): boolean => SYMBOLS.every((s) => this.venue.trueOurs(s) === 0);
    while (this.clock.now < flatBy && !flat()) {
      await deliverAll();
      await this.advance(1_000);
    }
    if (!flat()) throw new Error(`(f) not flat after the stop: ${SYMBOLS.map((s) => `${s} ${this.venue.trueOurs(s)}`).join(", ")}`);
    // The last reports in: the core says flat too.
    await deliverAll();
    await this.advance(POLL_MS);
    await deliverAll();
    for (const s of SYMBOLS) {
      const f = this.p.core.fold;
      const ours = round(f.holdings.ours(s, "CROSS") + f.holdings.unplaced(s));
      if (ours !== 0 || f.orders.size > 0)
        throw new Error(`(a) flat at the venue, but the core counts ${ours} of ${s} as ours (${f.orders.size} orders open)`);
    }
    for (const s of SYMBOLS)
      if (this.venue.held.get(s) !== MARKET[s].own)
        throw new Error(`(b) ${s}: the operator's own ${MARKET[s].own} became ${this.venue.held.get(s)}`);
    this.check(true);
  }

  async close(): Promise<void> {
    this.clock.kill();
    await this.p.unwinder.stop();
    await this.p.store.kill();
  }
}

/** A new directory for a file journal. */
export function journalDir(): string {
  return mkdtempSync(join(tmpdir(), "liq-model-"));
}
