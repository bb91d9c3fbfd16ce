/**
 * Bad input, end to end through the engine (issue "Reliability and security", item 4): sequences of
 * stream pushes and REST snapshots, half of them mutated, go through the same parsers and the same
 * wiring as the daemon (daemon.ts `#onData`, `#loadSymbols`, `#reconcileLoop`: wire.ts / zod →
 * OpenBook, MarkBook, Exposure, SymbolTable), and after every step every open liquidation is decided
 * with `decide()` under a realistic policy.
 *
 * Property: no step throws, and every claim decision is one that could only come from valid data —
 * an id that is a positive safe integer, a ratio that is a multiple of 0.001 in (0, 1], only symbols
 * of the symbol table that the liquidation offers with a non-zero finite quantity and a fee in
 * [0, 1), non-zero quantities of the position's sign, finite positive limits on the tick, on the
 * right side of the mark and within the slippage setting — and the mark it was priced on is the
 * last mark that an independent check of the raw input (below) calls valid and fresh: never a mark
 * that was rejected.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compileRiskPolicy, type RiskLimitsInputForTests, type RiskPolicyInput } from "../../src/config/riskPolicyOf.js";
import { OpenBook } from "../../src/daemon/feeds/openBook.js";
import { Exposure } from "../../src/engine/exposure.js";
import { MarkBook } from "../../src/engine/marks.js";
import { type ClaimDecision, decide, type PolicyContext } from "../../src/engine/policy.js";
import { tickDecimals } from "../../src/engine/quantize.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import type { Liquidation } from "../../src/engine/types.js";
import { DEFAULT_SYMBOLS } from "../../src/sim/symbols.js";
import { claimRequestBody, liquidationFromPush, liquidationFromRow, symbolInfoFromRow } from "../../src/venue/mapping.js";
import { futuresSchema, infoSchema, type OpenLiquidation, openLiquidationsSchema } from "../../src/venue/restSchemas.js";
import { MAX_PRICE, parseLiquidations, parseMarkPrice, parseMarkPrices, parsePositions } from "../../src/venue/wire.js";
import {
  BAD_SYMBOLS,
  check,
  checkFee,
  checkFinite,
  checkId,
  checkSymbol,
  type MutationOp,
  mutate,
  mutations,
  show,
  throughJson,
} from "./fuzzInputs.js";

/** Sequences; each carries an info table, a futures snapshot and 1..16 steps: about 50,000 generated inputs. */
const RUNS = 5_000;
const START = 1_700_000_000_000;

// ── a realistic market: the simulator's symbols, prices near its start prices ───────────────────

const SPECS = DEFAULT_SYMBOLS.slice(0, 6);
const NAMES = SPECS.map((s) => s.symbol);
/** Symbols in events: mostly the venue's, some well-formed but unknown, some malformed. */
const eventSymbol = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_SYMBOLS) },
);
const startPrice = (s: string): number => SPECS.find((x) => x.symbol === s)?.startPrice ?? 100;
const priceOf = (s: string): fc.Arbitrary<number> => fc.double({ min: 0.97, max: 1.03, noNaN: true }).map((f) => startPrice(s) * f);
const notional = fc.oneof(fc.double({ min: 50, max: 20_000, noNaN: true }), fc.double({ min: 20_000, max: 400_000, noNaN: true }));

const infoRows = SPECS.map((s) => ({
  symbol: s.symbol,
  liquidation_tier: s.tier,
  liquidator_fee: s.liquidatorFee,
  quote_tick: s.baseTick,
  min_notional: s.minNotional,
  base_imr: 0.1,
}));

const stringPosition = (camel: boolean) =>
  eventSymbol.chain((symbol) =>
    fc.tuple(notional, fc.boolean(), priceOf(symbol)).map(([n, long, p]) => {
      const qty = Number(((long ? 1 : -1) * (n / p)).toPrecision(8));
      const fee = SPECS.find((x) => x.symbol === symbol)?.liquidatorFee ?? 0.01;
      return camel ? { symbol, positionQty: qty, liquidatorFee: fee } : { symbol, position_qty: qty, liquidator_fee: fee };
    }),
  );
const smallId = fc.integer({ min: 1, max: 40 }); // few ids, so pushes, snapshots and removals meet
const positionsOf = (camel: boolean) => fc.uniqueArray(stringPosition(camel), { minLength: 1, maxLength: 3, selector: (p) => p.symbol });

const liquidationPush = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        liquidationId: smallId,
        timestamp: fc.constant(START),
        type: fc.constant("liquidated"),
        positionsByPerp: positionsOf(true),
      }),
    },
    { weight: 1, arbitrary: fc.record({ liquidationId: smallId, positionsByPerp: fc.constant([]) }) },
  ),
  { minLength: 1, maxLength: 4 },
);
const markRow = eventSymbol.chain((symbol) => priceOf(symbol).map((price) => ({ symbol, price })));
const markPrices = fc.array(markRow, { minLength: 1, maxLength: 6 });
const openLiquidationsPage = fc
  .array(
    fc.record({
      liquidation_id: smallId,
      timestamp: fc.constant(START),
      type: fc.constant("liquidated"),
      positions_by_perp: positionsOf(false),
    }),
    { maxLength: 5 },
  )
  .map((rows) => ({ meta: { total: rows.length, records_per_page: 60, current_page: 1 }, rows }));
const futures = fc
  .array(
    markRow.map((m) => ({ symbol: m.symbol, mark_price: m.price, index_price: m.price })),
    { maxLength: 6 },
  )
  .map((rows) => ({ rows }));
const positionPush = fc
  .uniqueArray(
    eventSymbol.chain((symbol) =>
      fc.record({ symbol: fc.constant(symbol), positionQty: fc.double({ min: -5, max: 5, noNaN: true }), markPrice: priceOf(symbol) }),
    ),
    { maxLength: 3, selector: (p) => p.symbol },
  )
  .map((positions) => ({ positions }));

type Step =
  | { kind: "liquidation" | "markprices" | "position" | "rest" | "futures"; data: unknown }
  | { kind: "markprice"; topicSymbol: string; data: unknown }
  | { kind: "tick"; ms: number }
  | { kind: "reserve" | "release" };

/** A valid payload, or (half the time) a mutated one; mutated payloads reach the code as JSON text would. */
function maybeMutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.option(mutations, { freq: 2 }), fc.boolean()).map(([v, ops, asJson]) => {
    if (ops === null) return v;
    const m = mutate(v, ops as MutationOp[]);
    return asJson ? throughJson(m) : m;
  });
}

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: maybeMutated(liquidationPush).map((data) => ({ kind: "liquidation" as const, data })) },
  { weight: 5, arbitrary: maybeMutated(markPrices).map((data) => ({ kind: "markprices" as const, data })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...NAMES), maybeMutated(markRow))
      .map(([topicSymbol, data]) => ({ kind: "markprice" as const, topicSymbol, data })),
  },
  { weight: 3, arbitrary: maybeMutated(openLiquidationsPage).map((data) => ({ kind: "rest" as const, data })) },
  { weight: 1, arbitrary: maybeMutated(futures).map((data) => ({ kind: "futures" as const, data })) },
  { weight: 1, arbitrary: maybeMutated(positionPush).map((data) => ({ kind: "position" as const, data })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 4_000 }).map((ms) => ({ kind: "tick" as const, ms })) },
  { weight: 1, arbitrary: fc.constantFrom({ kind: "reserve" as const }, { kind: "release" as const }) },
);

const policyArb: fc.Arbitrary<RiskPolicyInput> = fc.record({
  dry_run: fc.constant(false),
  max_claim_notional: fc.constantFrom(5_000, 50_000, 1_000_000),
  max_total_exposure: fc.constantFrom(20_000, 250_000, 10_000_000),
  min_fee: fc.constantFrom(0, 1, 5),
  limit_price_slippage_bps: fc.constantFrom(0, 10, 50, 500),
  max_mark_age_ms: fc.constantFrom(1_000, 3_000),
  symbols: fc.record({ allow: fc.constant([]), deny: fc.subarray(NAMES, { maxLength: 1 }) }),
  per_symbol: fc.constantFrom<Record<string, Partial<RiskLimitsInputForTests>>>(
    {},
    { PERP_ETH_USDC: { max_claim_notional: 2_000, limit_price_slippage_bps: 5 } },
  ),
});

// ── the independent check of raw marks ───────────────────────────────────────────────────────────

interface ModelMark {
  price: number;
  at: number;
}
const SYMBOL_RE = /^PERP_[A-Z0-9]+_[A-Z0-9]+$/;
const rawRow = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
/** A stream mark row is usable iff its symbol is well formed and its price a finite number in (0, MAX_PRICE]. */
function streamMarkOk(v: unknown): { symbol: string; price: number } | undefined {
  const r = rawRow(v);
  const symbol = r?.symbol;
  const price = r?.price;
  if (
    typeof symbol !== "string" ||
    !SYMBOL_RE.test(symbol) ||
    typeof price !== "number" ||
    !Number.isFinite(price) ||
    price <= 0 ||
    price > MAX_PRICE
  )
    return undefined;
  return { symbol, price };
}

// ── one sequence ─────────────────────────────────────────────────────────────────────────────────

interface World {
  ctx: PolicyContext;
  policy: RiskPolicyInput;
  book: OpenBook;
  marks: MarkBook;
  exposure: Exposure;
  model: Map<string, ModelMark>;
  now: number;
  claims: Map<number, ClaimDecision>;
  claimsSeen: number;
}

function apply(w: World, s: Step): void {
  const now = w.now;
  switch (s.kind) {
    case "tick":
      w.now += s.ms;
      return;
    case "reserve":
      for (const d of w.claims.values()) w.exposure.reserve(d.liquidationId, d.perSymbolQty);
      return;
    case "release":
      for (const id of w.claims.keys()) w.exposure.release(id);
      return;
    case "liquidation": {
      const r = parseLiquidations(s.data);
      if (r === undefined || (r.items.length === 0 && r.dropped > 0)) return;
      const changes = w.book.applyDelta(r.items.map(liquidationFromPush), now);
      for (const id of changes.removed) w.exposure.release(id);
      return;
    }
    case "markprices": {
      const r = parseMarkPrices(s.data);
      if (r === undefined) return; // not an array, or too long: the frame is refused whole
      w.marks.setMany(r.items, now);
      for (const row of s.data as unknown[]) noteMark(w, streamMarkOk(row), now);
      return;
    }
    case "markprice": {
      const m = parseMarkPrice(s.data, s.topicSymbol);
      if (m !== undefined) w.marks.set(m.symbol, m.price, now);
      const ok = streamMarkOk(s.data);
      noteMark(w, ok?.symbol === s.topicSymbol ? ok : undefined, now);
      return;
    }
    case "position": {
      const p = parsePositions(s.data);
      if (p !== undefined) w.exposure.applyPositions(p.positions, true);
      return;
    }
    case "rest": {
      // restFeed.ts → ingest.ts openList → RestClient.allOpenLiquidations (one page here: dedup by id, latest row wins).
      const page = openLiquidationsSchema.safeParse(s.data);
      if (!page.success) return;
      const rows: OpenLiquidation[] = [...new Map(page.data.rows.map((r) => [r.liquidation_id, r])).values()];
      const changes = w.book.reconcile(rows.map(liquidationFromRow), now - 1, now);
      for (const id of changes.removed) w.exposure.release(id);
      return;
    }
    case "futures": {
      // daemon.ts #loadSymbols: rows whose mark is a positive finite number feed the mark book.
      const f = futuresSchema.safeParse(s.data);
      if (!f.success) return;
      const rows = f.data.rows.filter((r) => Number.isFinite(r.mark_price) && r.mark_price > 0);
      w.marks.setMany(
        rows.map((r) => ({ symbol: r.symbol, price: r.mark_price })),
        now,
      );
      const raw = (s.data as { rows: unknown[] }).rows;
      for (const row of raw) {
        const r = rawRow(row);
        // A mark written as a decimal string is read too (docs/protocol.md §9); the oracle reads it on its own.
        const spelled = r?.mark_price;
        const price =
          typeof spelled === "string" && spelled.length <= 64 && /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(spelled)
            ? Number(spelled)
            : spelled;
        if (typeof r?.symbol === "string" && typeof price === "number" && Number.isFinite(price) && price > 0)
          noteMark(w, { symbol: r.symbol, price }, now);
      }
      return;
    }
  }
}

/** Marks arrive in time order here, so the latest usable one per symbol is the one that counts. */
function noteMark(w: World, m: { symbol: string; price: number } | undefined, now: number): void {
  if (m !== undefined) w.model.set(m.symbol, { price: m.price, at: now });
}

function checkClaim(w: World, d: ClaimDecision, liq: Liquidation): void {
  const id = d.liquidationId;
  check(id === liq.liquidationId, "the claim is for the liquidation decided");
  checkId(id, "liquidation_id");
  check(id > 0, "liquidation_id > 0");
  check(
    Number.isFinite(d.ratio) && d.ratio > 0 && d.ratio <= 1 && Math.round(d.ratio * 1000) / 1000 === d.ratio,
    () => `ratio ${d.ratio} is k/1000 in (0, 1]`,
  );
  const symbols = Object.keys(d.limitPrice);
  check(symbols.length > 0, "a claim prices at least one symbol");
  check(Object.keys(d.perSymbolQty).sort().join() === [...symbols].sort().join(), "quantities and limits cover the same symbols");
  const { policy, symbols: table } = w.ctx;
  let minFee = 0;
  let nonZero = 0;
  for (const symbol of symbols) {
    checkSymbol(symbol, "claimed symbol");
    const info = table.get(symbol);
    check(info !== undefined, () => `claimed ${symbol} is in the symbol table`);
    const pos = liq.positions.find((p) => p.symbol === symbol);
    check(pos !== undefined, () => `claimed ${symbol} is offered by liquidation ${id}`);
    checkFinite(pos.positionQty, "offered quantity");
    check(pos.positionQty !== 0, () => `claimed ${symbol} has a non-zero quantity`);
    checkFee(pos.liquidatorFee, "offered fee");
    const q = d.perSymbolQty[symbol] as number;
    checkFinite(q, "claimed quantity");
    check(Math.abs(q) <= Math.abs(pos.positionQty) * (1 + 1e-12) + 1e-9, () => `claimed quantity ${q} of ${pos.positionQty}`);
    if (q !== 0) {
      check(Math.sign(q) === Math.sign(pos.positionQty), () => `claimed quantity ${q} has the sign of ${pos.positionQty}`);
      nonZero++;
    } else {
      // Only dust rounds to nothing (docs/protocol.md §11: quantities are cut to 1e-9): a proportional claim
      // still names that symbol, because the venue applies the ratio to every open symbol.
      const r = d.symbols?.find((x) => x.symbol === symbol)?.ratio ?? d.ratio;
      check(Math.abs(pos.positionQty) * r < 1e-9, () => `claimed quantity 0 of ${pos.positionQty} at ratio ${r}`);
    }
    // The mark used: the mark book's, which must be the last raw mark that was valid.
    const mark = w.marks.get(symbol);
    const model = w.model.get(symbol);
    check(
      mark !== undefined && model !== undefined && mark.price === model.price,
      () => `${symbol} priced on ${show(mark?.price)}, the last valid mark is ${show(model?.price)}`,
    );
    const lim = policy.limitsFor(symbol);
    check(w.now - model.at <= lim.maxMarkAgeMs, () => `${symbol}'s mark is ${w.now - model.at} ms old (max ${lim.maxMarkAgeMs})`);
    const limit = d.limitPrice[symbol] as number;
    checkFinite(limit, "limit_price");
    check(limit > 0, "limit_price > 0");
    const bps = lim.slippageBps / 10_000;
    const m = mark.price;
    // The side rule follows the offered position (docs/protocol.md §4), also for a leg that rounds to 0.
    if (pos.positionQty > 0)
      check(limit >= m && limit <= m * (1 + bps) * (1 + 1e-12), () => `long ${symbol}: limit ${limit} in [mark ${m}, mark × (1 + ${bps})]`);
    else
      check(
        limit <= m && limit >= m * (1 - bps) * (1 - 1e-12),
        () => `short ${symbol}: limit ${limit} in [mark × (1 − ${bps}), mark ${m}]`,
      );
    const ticks = limit / info.priceTick;
    check(Math.abs(ticks - Math.round(ticks)) < 1e-6 * Math.max(1, ticks), () => `limit ${limit} is on the tick ${info.priceTick}`);
    check(policy.access(symbol) === "allowed", () => `${symbol} is allowed by the policy`);
    minFee = Math.max(minFee, lim.minFee);
  }
  check(nonZero > 0, "a claim takes a non-zero quantity of at least one symbol");
  if (d.symbols === undefined) {
    // A proportional claim takes a share of every open symbol: each needs its limit (docs/protocol.md §4).
    for (const p of liq.positions) if (p.positionQty !== 0) check(p.symbol in d.limitPrice, () => `proportional claim prices ${p.symbol}`);
  } else {
    for (const s of d.symbols) check(table.get(s.symbol)?.tier === 2, () => `per-symbol claim only on high tier, got ${s.symbol}`);
  }
  checkFinite(d.expectedFee, "expectedFee");
  check(d.expectedFee >= minFee, () => `expected fee ${d.expectedFee} >= min_fee ${minFee}`);
  checkFinite(d.notional, "notional");
  check(d.notional > 0, "notional > 0");
  // What would be sent: valid JSON, every number finite.
  const text = JSON.stringify(claimRequestBody(d));
  check(!text.includes("null"), () => `claim body has no null (NaN/Infinity): ${text}`);
}

function checkTable(table: SymbolTable): void {
  for (const info of table.values()) {
    checkSymbol(info.symbol, "table symbol");
    check(info.tier === 1 || info.tier === 2, "tier is 1 or 2");
    checkFee(info.liquidatorFee, "table fee");
    check(
      Number.isFinite(info.priceTick) && info.priceTick > 0 && tickDecimals(info.priceTick) !== undefined,
      () => `tick ${info.priceTick} is a positive decimal`,
    );
    check(Number.isFinite(info.minNotional) && info.minNotional >= 0, "min_notional is finite >= 0");
  }
}

/** Runs one sequence; returns how many claim decisions it checked. */
function runSequence(policy: RiskPolicyInput, info: unknown, snapshot: unknown, steps: Step[]): number {
  const marks = new MarkBook();
  const exposure = new Exposure();
  // daemon.ts #symbolsLoop: a response that fails the schema is retried; meanwhile no symbol is known.
  const parsed = infoSchema.safeParse(info);
  const table = parsed.success ? SymbolTable.fromUntrusted(parsed.data.rows.map(symbolInfoFromRow)).table : new SymbolTable();
  checkTable(table);
  const w: World = {
    ctx: { policy: compileRiskPolicy(policy), symbols: table, marks, exposure },
    policy,
    book: new OpenBook(),
    marks,
    exposure,
    model: new Map(),
    now: START,
    claims: new Map(),
    claimsSeen: 0,
  };
  // daemon.ts #loadSymbols also seeds the marks from GET /v1/public/futures before the streams start.
  for (const s of [{ kind: "futures" as const, data: snapshot }, ...steps]) {
    apply(w, s);
    w.claims.clear();
    for (const liq of w.book.values()) {
      const d = decide(liq, w.ctx, w.now);
      if (d.action === "skip") continue;
      checkClaim(w, d, liq);
      w.claims.set(d.liquidationId, d);
      w.claimsSeen++;
    }
  }
  return w.claimsSeen;
}

describe("pipeline: parsed stream and REST input → OpenBook / MarkBook / Exposure → decide()", () => {
  test("no step throws; every claim comes from valid data only", () => {
    const info = fc.oneof(
      { weight: 3, arbitrary: fc.constant({ rows: infoRows }) },
      { weight: 1, arbitrary: maybeMutated(fc.constant({ rows: infoRows })) },
    );
    const snapshot = maybeMutated(
      fc
        .constant(null)
        .chain(() =>
          fc
            .tuple(...NAMES.map((s) => priceOf(s)))
            .map((prices) => ({ rows: NAMES.map((symbol, i) => ({ symbol, mark_price: prices[i], index_price: prices[i] })) })),
        ),
    );
    let claims = 0;
    fc.assert(
      fc.property(
        policyArb,
        info,
        snapshot,
        fc.array(step, { minLength: 1, maxLength: 16, size: "max" }),
        (policy, infoData, snap, steps) => {
          claims += runSequence(policy, infoData, snap, steps);
        },
      ),
      { numRuns: RUNS },
    );
    // Not vacuous: the valid half of the input must lead to plenty of claims to check.
    expect(claims).toBeGreaterThan(2 * RUNS);
  });
});
