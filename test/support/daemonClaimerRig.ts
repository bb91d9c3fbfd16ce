/**
 * A Claimer with real engine objects (policy, marks, exposure, open book), a real Journal in a temp
 * dir, a claims-permit source the test grants by hand, and a fake venue transport whose answers the
 * test settles by hand. Meant for fake timers (the claimer's clocks read Date.now). Not a test file.
 */

import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, vi } from "vitest";
import type { RiskPolicyInput } from "../../src/config/riskPolicyOf.js";
import { buildTradingCore } from "../../src/core/buildCore.js";
import type { ClaimGate } from "../../src/core/claimPipeline.js";
import { CoreFold } from "../../src/core/coreFold.js";
import type { CoreLogger } from "../../src/core/corePort.js";
import type { JournalRecord } from "../../src/core/journalRecords.js";
import type { CoreTimings, TradingCore } from "../../src/core/tradingCore.js";
import { Claimer, type ClaimerOptions } from "../../src/daemon/claim/claimer.js";
import { ClaimSender, type ClaimTransport } from "../../src/daemon/claim/claimSender.js";
import { PolicyState } from "../../src/daemon/claim/policyState.js";
import { Ingest } from "../../src/daemon/feeds/ingest.js";
import { OpenBook } from "../../src/daemon/feeds/openBook.js";
import type { Slicer } from "../../src/daemon/feeds/sliceQueue.js";
import type { MarginSource } from "../../src/engine/claimMargin.js";
import { Exposure } from "../../src/engine/exposure.js";
import { MarkBook } from "../../src/engine/marks.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import type { Liquidation, SymbolInfo } from "../../src/engine/types.js";
import { AbortedError } from "../../src/errors.js";
import { JOURNAL_FILE, Journal } from "../../src/store/fileJournal.js";
import { FileStore } from "../../src/store/fileStore.js";
import { VENUE_CODES, VenueError } from "../../src/venue/errors.js";
import type { RecordedClaim } from "../../src/venue/liquidatorRecord.js";
import type { ClaimRequest, ClaimResult } from "../../src/venue/restSchemas.js";
import type { FundClaimRequest } from "../../src/venue/supplySchemas.js";
import type { LiquidatorLiquidation } from "../../src/venue/wire.js";
import { PRICES, policyInput, SYMBOLS } from "../unit/engine.fixtures.js";

/** Claims-limiter permits, granted by the test. */
export class Permits {
  readonly #waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  granted = 0;

  get waiting(): number {
    return this.#waiting.length;
  }

  readonly acquire = (signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const w = { resolve, reject };
      this.#waiting.push(w);
      signal.addEventListener(
        "abort",
        () => {
          const i = this.#waiting.indexOf(w);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(new AbortedError());
        },
        { once: true },
      );
    });

  grant(): void {
    const w = this.#waiting.shift();
    if (w === undefined) throw new Error("nobody is waiting for a permit");
    this.granted++;
    w.resolve();
  }
}

export interface VenueCall {
  body: ClaimRequest;
  settled: boolean;
  resolve(result: ClaimResult): void;
  reject(err: unknown): void;
}

/** The transport: records every claim that would leave the process; the test answers each. */
export class FakeClaimTransport implements ClaimTransport {
  readonly calls: VenueCall[] = [];
  /** Bodies the claim rehearsal built (never sent). */
  readonly rehearsed: ClaimRequest[] = [];

  claimText(body: ClaimRequest): number {
    this.rehearsed.push(body);
    return JSON.stringify(body).length;
  }

  claimLiquidation(body: ClaimRequest): Promise<ClaimResult> {
    return new Promise<ClaimResult>((resolve, reject) => {
      const call: VenueCall = {
        body,
        settled: false,
        resolve: (r) => {
          call.settled = true;
          resolve(r);
        },
        reject: (e) => {
          call.settled = true;
          reject(e);
        },
      };
      this.calls.push(call);
    });
  }

  ids(): number[] {
    return this.calls.map((c) => c.body.liquidation_id);
  }

  last(): VenueCall {
    const c = this.calls.at(-1);
    if (c === undefined) throw new Error("no claim reached the venue");
    return c;
  }
}

export function venueError(code: number): VenueError {
  return new VenueError({
    venueCode: code,
    status: VENUE_CODES.get(code)?.status ?? 400,
    venueMessage: "refused",
    endpoint: "/v1/liquidation",
  });
}

export type ObserverEvent =
  | { e: "skipped"; reason: string }
  | { e: "submitted" }
  | { e: "result"; result: string; code: string }
  | { e: "fee"; symbol: string; amount: number }
  | { e: "paused"; reason: string; on: boolean }
  | { e: "given_up" };

/** The insurance fund's claim endpoint: records each claim; the test answers it. */
export class FakeFundTransport {
  readonly calls: { body: FundClaimRequest; resolve(result: ClaimResult): void; reject(err: unknown): void }[] = [];

  claimInsuranceFund(body: FundClaimRequest): Promise<ClaimResult> {
    return new Promise<ClaimResult>((resolve, reject) => void this.calls.push({ body, resolve, reject }));
  }
}

export interface ClaimerRig {
  claimer: Claimer;
  core: TradingCore;
  sender: ClaimSender;
  venue: FakeClaimTransport;
  /** The insurance fund's endpoint, and the fund limiter's permits (`fundLimiter`). */
  fund: FakeFundTransport;
  fundPermits: Permits;
  permits: Permits;
  book: OpenBook;
  marks: MarkBook;
  exposure: Exposure;
  journal: Journal;
  policy: PolicyState;
  positions: PositionBook;
  events: ObserverEvent[];
  /** The venue's record of our claims (GET /v1/client/liquidator_liquidations), as the test sets it. */
  record: { rows: RecordedClaim[]; unavailable: boolean; reads: number; unreadRows: number };
  /** The liquidation appears (as a stream push would add it) and is offered. */
  add(l: Liquidation): void;
  /** Every mark set to its price now (fresh). */
  refreshMarks(prices?: Record<string, number>): void;
  /** The venue's answer for a call: what the claim rules (docs/protocol.md §11) would transfer at the current marks. */
  resultFor(call: VenueCall, timestamp?: number): ClaimResult;
  /** The private push for a call, as the venue would send it. */
  assignmentFor(call: VenueCall, timestamp?: number): LiquidatorLiquidation;
  /** The venue's record row of a call (as `record.rows` holds it once the venue applied it). */
  recordFor(call: VenueCall, timestamp?: number): RecordedClaim;
  records(): JournalRecord[];
  close(): Promise<void>;
}

export interface ClaimerRigOptions {
  policy?: Partial<RiskPolicyInput>;
  dryRun?: boolean;
  /** The claims limiter (the rig's own permits by default), and a permit free now. */
  acquire?: ClaimerOptions["acquire"];
  tryAcquire?: ClaimerOptions["tryAcquire"];
  /** The fund's claims on a limiter of their own (the rig's `fundPermits`), as the daemon runs them; else on the claims limiter. */
  fundLimiter?: boolean;
  timings?: Partial<CoreTimings>;
  logger?: CoreLogger;
  /** Re-read the account (a -1101): the positions read the core asks for. */
  rereadAccount?: () => void;
  /** The account margin is checked against (none: not checked), and the symbols' margin parameters. */
  account?: MarginSource;
  symbols?: SymbolInfo[];
  /** The journal's state the core adopts at start (a restart). */
  fold?: CoreFold;
  /** The protection gate, asked before deciding. */
  gate?: ClaimGate;
  /** The opportunity ledger: skip verdicts and departures of open ids. */
  opportunities?: { skipped(id: number, reason: string): void; left(id: number, pending: boolean): void };
}

export async function claimerRig(o: ClaimerRigOptions = {}): Promise<ClaimerRig> {
  const dir = await mkdtemp(join(tmpdir(), "liq-claimer-"));
  const { journal } = Journal.open({ dir });
  const marks = new MarkBook();
  const exposure = new Exposure();
  const book = new OpenBook();
  const policy = new PolicyState(
    policyInput({ min_fee: 0, max_total_exposure: 10_000_000, max_claim_notional: 1_000_000, ...o.policy }),
    marks,
    exposure,
    o.account,
  );
  policy.applySymbols(new SymbolTable(o.symbols ?? SYMBOLS));
  const positions = new PositionBook(exposure);
  const venue = new FakeClaimTransport();
  const permits = new Permits();
  const events: ObserverEvent[] = [];
  const quantities = new Map<number, Liquidation>();
  const fund = new FakeFundTransport();
  const fundPermits = new Permits();
  const sender = new ClaimSender(venue, o.dryRun ?? false, undefined, fund);
  const store = new FileStore(journal, "test");
  const record = { rows: [] as RecordedClaim[], unavailable: false, reads: 0, unreadRows: 0 };
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  let claimer: Claimer | undefined;
  const { core, desk } = buildTradingCore({
    fold: new CoreFold(),
    exposure,
    positions,
    port: {
      intent: (r) => store.intent(r),
      append: (r) => store.append(r),
      recover: () => store.recover(),
      mayLead: () => true,
      sendClaim: (body, dryRun, answered) => {
        sender.send(body, dryRun).then(answered, (error: unknown) => answered({ error }));
      },
      sendFundClaim: (body, dryRun, answered) => {
        sender.sendFund(body, dryRun).then(answered, (error: unknown) => answered({ error }));
      },
      placeOrder: () => Promise.reject(new Error("no orders in the claimer rig")),
      readRecord: async () => {
        record.reads++;
        if (record.unavailable) return { ok: false, reason: "unavailable (test)", permanent: false };
        const claims = record.rows.map((r) => ({ ...r, fills: [...r.fills] }));
        return { ok: true, claims, asOf: Date.now(), unreadRows: record.unreadRows };
      },
      requestPositions: () => o.rereadAccount?.(),
      schedule: (ms, f) => {
        const t = setTimeout(f, ms);
        return () => clearTimeout(t);
      },
      now: () => Date.now(),
      monotonic: () => Date.now(),
    },
    scope: () => "claimed",
    mark: (symbol) => marks.price(symbol),
    orderWorking: () => false,
    changed: () => undefined,
    desk: {
      decide: policy.decide,
      ...(o.gate !== undefined ? { gate: o.gate } : {}),
      book,
      dryRun: () => sender.dryRun,
      skipped: (reason, id) => {
        events.push({ e: "skipped", reason });
        o.opportunities?.skipped(id, reason);
      },
      ...(o.opportunities !== undefined ? { left: (id: number, pending: boolean) => o.opportunities?.left(id, pending) } : {}),
      paused: (reason, on) => void events.push({ e: "paused", reason, on }),
      queued: (liquidation, d) => claimer?.hooks.queued(liquidation, d),
      wake: () => claimer?.hooks.wake(),
    },
    observer: {
      submitted: () => void events.push({ e: "submitted" }),
      result: (result, code) => void events.push({ e: "result", result, code }),
      decisionLatency: () => undefined,
      feeEarned: (symbol, amount) => void events.push({ e: "fee", symbol, amount }),
      settled: () => undefined,
      traded: () => undefined,
      unknown: () => undefined,
      givenUp: () => void events.push({ e: "given_up" }),
      changed: () => undefined,
    },
    logger: o.logger ?? silent,
    ...(o.timings !== undefined ? { timings: o.timings } : {}),
  });
  claimer = new Claimer({
    desk,
    acquire: o.acquire ?? permits.acquire,
    ...(o.tryAcquire !== undefined ? { tryAcquire: o.tryAcquire } : {}),
    ...(o.fundLimiter === true ? { acquireFund: fundPermits.acquire } : {}),
    dryRun: () => sender.dryRun,
    wire: venue,
    now: () => Date.now(),
  });
  if (o.fold !== undefined) core.adopt(o.fold);
  const refreshMarks = (prices: Record<string, number> = {}): void => {
    for (const [symbol, price] of Object.entries({ ...PRICES, ...prices })) marks.set(symbol, price, Date.now());
  };
  refreshMarks();
  claimer.start();

  const transfers = (call: VenueCall) => {
    const liq = quantities.get(call.body.liquidation_id);
    if (liq === undefined) throw new Error(`unknown liquidation ${call.body.liquidation_id}`);
    return Object.keys(call.body.limit_price).map((symbol) => {
      const pos = liq.positions.find((p) => p.symbol === symbol);
      if (pos === undefined) throw new Error(`${symbol} is not in ${liq.liquidationId}`);
      const ratio = call.body.symbols?.find((s) => s.symbol === symbol)?.ratio_qty_request ?? call.body.ratio_qty_request;
      const q = Math.round(pos.positionQty * ratio * 1e9) / 1e9;
      const mark = marks.get(symbol)?.price as number;
      const price = mark * (1 - Math.sign(q) * pos.liquidatorFee);
      const cost = q * price;
      return { symbol, q, price, cost, fee: pos.liquidatorFee, abs: Math.abs(cost) * pos.liquidatorFee };
    });
  };

  return {
    claimer,
    core,
    sender,
    venue,
    fund,
    fundPermits,
    permits,
    book,
    marks,
    exposure,
    journal,
    policy,
    positions,
    events,
    record,
    add: (l) => {
      quantities.set(l.liquidationId, l);
      book.applyDelta([l], Date.now());
      claimer.offer(l);
    },
    refreshMarks,
    resultFor: (call, timestamp = Date.now()) => ({
      liquidation_id: call.body.liquidation_id,
      timestamp,
      type: "liquidated",
      positions_by_perp: transfers(call).map((t) => ({
        symbol: t.symbol,
        position_qty: t.q,
        transfer_price: t.price,
        cost_position_transfer: t.cost,
        liquidator_fee: t.fee,
        abs_liquidator_fee: t.abs,
      })),
    }),
    assignmentFor: (call, timestamp = Date.now()) => ({
      liquidationId: call.body.liquidation_id,
      timestamp,
      type: "liquidated",
      assigned: 1,
      positionsByPerp: transfers(call).map((t) => ({
        symbol: t.symbol,
        positionQty: t.q,
        transferPrice: t.price,
        costPositionTransfer: t.cost,
        liquidatorFee: t.fee,
        absLiquidatorFee: t.abs,
      })),
    }),
    recordFor: (call, timestamp = Date.now()) => ({
      liquidationId: call.body.liquidation_id,
      timestamp,
      fills: transfers(call).map((t) => ({ symbol: t.symbol, qty: t.q, price: t.price, fee: t.abs })),
    }),
    records: () => {
      const text = readFileSync(join(dir, JOURNAL_FILE), "utf8");
      return text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as JournalRecord);
    },
    close: async () => {
      for (const c of venue.calls) if (!c.settled) c.reject(new AbortedError("test over"));
      for (const c of fund.calls) c.reject(new AbortedError("test over"));
      await claimer.stop();
      await journal.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The daemon's input handling over a rig's book, marks, claimer and positions. */
export function ingestFor(r: ClaimerRig, o: { slices: Slicer; liquidationsSeen?: (n?: number) => void }): Ingest {
  return new Ingest({
    book: r.book,
    marks: r.marks,
    claimer: r.claimer,
    core: r.core,
    positions: r.positions,
    policy: r.policy,
    metrics: { liquidationsSeen: { inc: o.liquidationsSeen ?? (() => undefined) } },
    logger: { info: () => undefined },
    slices: o.slices,
  });
}

/** Fake timers for a claimer rig's test file, the rig closed after each test (`current` returns it). */
export function useClaimerClock(current: () => ClaimerRig | undefined): void {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  });
  afterEach(async () => {
    await current()?.close();
    vi.useRealTimers();
  });
}

/** Let promises and timers due within `ms` run (fake timers). */
export const settleTimers = async (ms = 0): Promise<void> => void (await vi.advanceTimersByTimeAsync(ms));

/** Grant every permit the claimer waits for, up to `max`, letting it act after each. */
export async function grantAll(rig: ClaimerRig, max = 20): Promise<void> {
  for (let i = 0; i < max; i++) {
    await settleTimers();
    if (rig.permits.waiting === 0) return;
    rig.permits.grant();
  }
  await settleTimers();
}
