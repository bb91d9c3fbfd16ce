/**
 * Bad input, REST side (issue "Reliability and security", item 4): the real RestClient (undici, zod
 * envelopes) against a real port-0 node:http server that answers every request with a generated
 * response — a valid envelope and payload mutated at random, an error envelope with junk codes and
 * messages, arbitrary JSON, random text and bytes, truncated JSON, any HTTP status, a dropped
 * connection, a body cut short, a Content-Length that lies.
 *
 * Properties:
 *  (d1) every call settles: it resolves with data, or rejects with a LiquidatorError of a known code
 *       (never a raw TypeError, never an undefined access), whose message holds no control
 *       characters and stays short; a non-2xx status, a dropped or short answer, or anything but a
 *       `success: true` envelope always rejects; accepted data satisfies the invariants the daemon
 *       relies on (finite numbers, safe-integer ids, claim fills with a venue symbol, a fee fraction,
 *       a positive price and a fee amount >= 0); nothing pollutes Object.prototype;
 *  (d2) through the Claimer (ClaimSender → RestClient → this server, real journal, real prom-client
 *       metrics wired as main.ts wires them): a claim response that fails validation never counts as
 *       accepted data — no `success` result, no journal `accepted` record, no fee, no change of held
 *       exposure — and no claim outcome ends in an unhandled rejection.
 */
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compileRiskPolicy } from "../../src/config/riskPolicyOf.js";
import { ClaimSender } from "../../src/daemon/claim/claimSender.js";
import { OpenBook } from "../../src/daemon/feeds/openBook.js";
import { Exposure } from "../../src/engine/exposure.js";
import { MarkBook } from "../../src/engine/marks.js";
import { decide, type PolicyContext } from "../../src/engine/policy.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import { LiquidatorError } from "../../src/errors.js";
import { createMetrics } from "../../src/observe/metrics.js";
import { JOURNAL_FILE, Journal } from "../../src/store/fileJournal.js";
import { FileStore } from "../../src/store/fileStore.js";
import { parseJournal } from "../../src/store/journalReplay.js";
import { symbolInfoFromRow } from "../../src/venue/mapping.js";
import { RestClient } from "../../src/venue/rest.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { coreOn } from "../support/coreOn.js";
import { sleep, waitFor } from "../support/wait.js";
import { arbitraryText, check, checkFee, checkFinite, checkId, checkSymbol, mutate, mutations, show, toJsonText } from "./fuzzInputs.js";

/**
 * Sockets are slower than function calls: fewer runs here (about 3,000 generated responses in all).
 * FZ_CALLS / FZ_CLAIMER raise them for a longer local session.
 */
const RUNS = { calls: Number(process.env.FZ_CALLS ?? 2_500), claimer: Number(process.env.FZ_CLAIMER ?? 500) } as const;
const ERROR_CODES = new Set(["LIQ_VENUE", "LIQ_TRANSPORT", "LIQ_TIMEOUT", "LIQ_BAD_RESPONSE"]);
const SETTLE_DEADLINE_MS = 15_000;
const TIMEOUT_MS = 300; // per request; a "hang" answer costs this much

// ── the scripted server ──────────────────────────────────────────────────────────────────────────

type Mode = "normal" | "destroy" | "partial" | "lyingLength" | "hang";
interface Reply {
  status: number;
  body: string;
  contentType: string;
  mode: Mode;
}

let server: Server;
let baseUrl: string;
/** Answers for the next requests, in order; when empty, a valid empty page (ends a paging loop). */
let queue: Reply[] = [];
/**
 * When set, only requests under this path prefix are answered from `queue`: a request of an earlier
 * run that the client gave up on (its timeout, on a loaded machine) may arrive late, and must not
 * take the current run's answer. It is cut off instead.
 */
let current: string | undefined;
const hung: ServerResponse[] = [];

/**
 * Once the scripted answers are used up: a claim is "gone" (-1202: a retry the claimer makes ends
 * there), a read gets a valid empty page (ends a paging loop).
 */
function fallback(isClaim: boolean): Reply {
  const body = isClaim
    ? { success: false, code: -1202, message: "gone" }
    : { success: true, data: { meta: { total: 0, records_per_page: 60, current_page: 2 }, rows: [] }, timestamp: Date.now() };
  return { status: isClaim ? 400 : 200, body: JSON.stringify(body), contentType: "application/json", mode: "normal" };
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on("end", () => {
    if (current !== undefined && !req.url?.startsWith(`/${current}/`)) return void req.socket.destroy();
    const r = queue.shift() ?? fallback(req.method === "POST");
    switch (r.mode) {
      case "destroy":
        return void req.socket.destroy();
      case "hang":
        return void hung.push(res);
      case "partial":
        res.writeHead(r.status, { "content-type": r.contentType, "content-length": String(Buffer.byteLength(r.body) + 10) });
        res.write(r.body.slice(0, Math.floor(r.body.length / 2)));
        return void setImmediate(() => req.socket.destroy());
      case "lyingLength":
        res.writeHead(r.status, { "content-type": r.contentType, "content-length": String(Buffer.byteLength(r.body) + 1) });
        res.write(r.body);
        return void setImmediate(() => req.socket.destroy());
      case "normal":
        res.writeHead(r.status, { "content-type": r.contentType });
        return void res.end(r.body);
    }
  });
}

beforeAll(async () => {
  server = createServer(answer);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hung) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// ── generated answers ────────────────────────────────────────────────────────────────────────────

const symbol = fc.constantFrom("PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_DOGE_USDC");
const int = fc.integer({ min: 0, max: 2_000_000_000 });
const num = fc.double({ min: -1e6, max: 1e6, noNaN: true });
const pos = fc.double({ min: 1e-3, max: 2e5, noNaN: true });
const meta = fc.record({ total: fc.integer({ min: 0, max: 3 }), records_per_page: fc.constant(60), current_page: fc.constant(1) });

const positionTransfer = fc.record({
  symbol,
  position_qty: num,
  cost_position_transfer: num,
  transfer_price: pos,
  liquidator_fee: fc.double({ min: 0, max: 0.05, noNaN: true }),
  abs_liquidator_fee: fc.double({ min: 0, max: 1e4, noNaN: true }),
});
const claimResult = fc.record({
  liquidation_id: int,
  timestamp: int,
  type: fc.constantFrom("liquidated", "claim"),
  positions_by_perp: fc.array(positionTransfer, { minLength: 1, maxLength: 3 }),
});

/** The operations, each with a valid payload generator and what it sends. */
const OPS = {
  epochInfo: {
    data: fc.record({
      current_epoch: int,
      rows: fc.array(
        fc.record({
          epoch_id: int,
          start_time: int,
          end_time: int,
          power_fees_paid_major: num,
          power_fees_paid_alts: num,
          power_staked_major: num,
          power_staked_alts: num,
          epoch_token: fc.constant("ORDER"),
          max_reward_amount: num,
          k_constant_major: num,
          k_constant_alts: num,
        }),
        { maxLength: 2 },
      ),
    }),
    call: (c: RestClient) => c.epochInfo(),
  },
  epochData: {
    data: fc.record({
      total_released_trading_rewards_native: num,
      total_released_trading_rewards_escrow: num,
      current_epoch: int,
      rows: fc.array(
        fc.record({
          epoch_id: int,
          total_trader_score_major: num,
          total_trader_score_alts: num,
          epoch_token: fc.constant("ORDER"),
          reward_status: fc.constantFrom("Ongoing", "Pending", "Confirmed", "0", 0),
          r_major: num,
          r_alts: num,
        }),
        { maxLength: 2 },
      ),
    }),
    call: (c: RestClient) => c.epochData(),
  },
  campaignUser: {
    data: fc.record({
      volume: num,
      filled_order_count: int,
      updated_time: int,
      pnl: num,
      total_deposit_amount: num,
      total_withdrawal_amount: num,
      start_account_value: num,
      end_account_value: num,
      new_invited_referee: int,
      new_traded_referee: int,
      total_staked_native: num,
      total_staked_esnative: num,
    }),
    call: (c: RestClient) => c.campaignUser({ campaign_id: 7, account_id: "0xabc" }),
  },
  adminOrders: {
    data: fc.record({
      meta,
      rows: fc.array(
        fc.record({
          order_id: int,
          user_id: int,
          price: fc.option(pos),
          type: fc.constant("LIMIT"),
          quantity: pos,
          amount: fc.option(pos),
          total_executed_quantity: pos,
          visible_quantity: pos,
          symbol,
          side: fc.constantFrom("BUY", "SELL"),
          status: fc.constant("FILLED"),
          total_fee: num,
          fee_asset: fc.constant("USDC"),
          client_order_id: fc.option(int),
          average_executed_price: fc.option(pos),
          created_time: int,
          updated_time: int,
          realized_pnl: fc.option(num),
          executed_quantity: pos,
          visible: pos,
          executed: pos,
          reduce_only: fc.boolean(),
          order_tag: fc.option(fc.string()),
          margin_mode: fc.constant("CROSS"),
        }),
        { maxLength: 2 },
      ),
    }),
    call: (c: RestClient) => c.adminOrders({ user_account: "0xabc" }),
  },
  claim: {
    data: claimResult,
    call: (c: RestClient) => c.claimLiquidation({ liquidation_id: 7, ratio_qty_request: 1, limit_price: { PERP_BTC_USDC: 100_000 } }),
  },
  openLiquidations: {
    data: fc.record({
      meta,
      rows: fc.array(
        fc.record({
          liquidation_id: int,
          timestamp: int,
          type: fc.constant("liquidated"),
          positions_by_perp: fc.array(
            fc.record({ symbol, position_qty: num, liquidator_fee: fc.double({ min: 0, max: 0.05, noNaN: true }) }),
            { maxLength: 3 },
          ),
        }),
        { maxLength: 3 },
      ),
    }),
    call: (c: RestClient) => c.openLiquidations(),
  },
  allOpenLiquidations: {
    data: fc.record({
      meta,
      rows: fc.array(
        fc.record({
          liquidation_id: int,
          timestamp: int,
          type: fc.constant("liquidated"),
          positions_by_perp: fc.array(fc.record({ symbol, position_qty: num, liquidator_fee: fc.constant(0.006) }), { maxLength: 2 }),
        }),
        { maxLength: 3 },
      ),
    }),
    call: (c: RestClient) => c.allOpenLiquidations(),
  },
  futures: {
    data: fc.record({ rows: fc.array(fc.record({ symbol, mark_price: pos, index_price: pos }), { maxLength: 3 }) }),
    call: (c: RestClient) => c.futures(),
  },
  info: {
    data: fc.record({
      rows: fc.array(
        fc.record({
          symbol,
          liquidation_tier: fc.constantFrom(1, 2),
          liquidator_fee: fc.constant(0.006),
          base_tick: fc.constant(0.1),
          min_notional: fc.constant(10),
        }),
        { maxLength: 3 },
      ),
    }),
    call: (c: RestClient) => c.info(),
  },
} as const;
type OpName = keyof typeof OPS;
const OP_NAMES = Object.keys(OPS) as OpName[];

const status = fc.oneof(
  { weight: 8, arbitrary: fc.constant(200) },
  { weight: 3, arbitrary: fc.constantFrom(201, 204, 301, 400, 401, 404, 409, 429, 500, 502, 503, 504, 599) },
);
// A hang costs a whole request timeout: rare.
const mode = fc.oneof(
  { weight: 300, arbitrary: fc.constant<Mode>("normal") },
  { weight: 20, arbitrary: fc.constantFrom<Mode>("destroy", "partial", "lyingLength") },
  { weight: 1, arbitrary: fc.constant<Mode>("hang") },
);
const contentType = fc.constantFrom("application/json", "application/json; charset=utf-8", "text/html", "application/octet-stream");
const junkCode = fc.oneof(
  fc.constantFrom(-1000, -1003, -1005, -1011, -1012, -1101, -1201, -1202, -1203, "-1011", " -1202 ", "abc", "", null, 1.5, 2 ** 60),
  fc.jsonValue({ maxDepth: 1 }),
);
const junkMessage = fc.oneof(
  fc.string(),
  fc.constantFrom("\u001b[31mred\u0007", "line\nbreak", "x".repeat(5_000)),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A body for an operation: mostly a (mutated) success envelope around a valid payload. */
function bodyFor(op: OpName): fc.Arbitrary<string> {
  const data = OPS[op].data as fc.Arbitrary<unknown>;
  const envelope = fc
    .tuple(data, fc.oneof(fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }), fc.constantFrom(undefined, "now", -1, 1e400)))
    .map(([d, ts]) => ({ success: true, data: d, timestamp: ts }));
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(envelope, mutations).map(([e, ops]) => toJsonText(mutate(e, ops))) },
    { weight: 2, arbitrary: envelope.map((e) => toJsonText(e)) },
    {
      weight: 2,
      arbitrary: fc
        .record({ success: fc.constant(false), code: junkCode, message: junkMessage }, { requiredKeys: ["success"] })
        .map((e) => JSON.stringify(e)),
    },
    { weight: 2, arbitrary: arbitraryText },
    { weight: 1, arbitrary: envelope.chain((e) => fc.nat().map((n) => JSON.stringify(e).slice(0, n % 40))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "<html><body>502 Bad Gateway</body></html>",
        "null",
        "[]",
        '{"success":"true","data":{}}',
        '{"success":true}',
      ),
    },
  );
}
const reply = (op: OpName): fc.Arbitrary<Reply> => fc.record({ status, body: bodyFor(op), contentType, mode });

// ── invariants ───────────────────────────────────────────────────────────────────────────────────

/** Every number anywhere in accepted data is finite (zod rejects NaN and ±Infinity; 1e400 parses to Infinity). */
function checkAllFinite(v: unknown, path = "data"): void {
  if (typeof v === "number") return checkFinite(v, path);
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) checkAllFinite(x, `${path}[${i}]`);
    return;
  }
  if (typeof v === "object" && v !== null) for (const [k, x] of Object.entries(v)) checkAllFinite(x, `${path}.${k}`);
}

function checkAccepted(op: OpName, data: unknown): void {
  // Symbol info rows reach the engine unchecked: it refuses each unusable one (checked below).
  if (op !== "info") checkAllFinite(data);
  const d = data as Record<string, unknown>;
  switch (op) {
    case "claim": {
      // Every field is optional (docs/protocol.md §9: a lean answer is an accepted claim); one present is in bounds.
      if (d.liquidation_id !== undefined) checkId(d.liquidation_id, "liquidation_id");
      if (d.positions_by_perp === undefined) return;
      for (const p of d.positions_by_perp as Record<string, unknown>[]) {
        if (p.symbol !== undefined) checkSymbol(p.symbol, "fill symbol");
        if (p.liquidator_fee !== undefined) checkFee(p.liquidator_fee, "fill liquidator_fee");
        if (p.transfer_price !== undefined)
          check((p.transfer_price as number) > 0, () => `transfer_price > 0, got ${show(p.transfer_price)}`);
        if (p.abs_liquidator_fee !== undefined)
          check((p.abs_liquidator_fee as number) >= 0, () => `abs_liquidator_fee >= 0, got ${show(p.abs_liquidator_fee)}`);
      }
      return;
    }
    case "openLiquidations":
    case "allOpenLiquidations": {
      const rows = op === "openLiquidations" ? (d.rows as Record<string, unknown>[]) : (data as Record<string, unknown>[]);
      // Safe integers (zod's int); a negative or zero id is the engine's to refuse (pipeline.fuzz.test.ts).
      for (const r of rows)
        check(Number.isSafeInteger(r.liquidation_id), () => `liquidation_id is a safe integer, got ${show(r.liquidation_id)}`);
      if (op === "allOpenLiquidations")
        check(new Set(rows.map((r) => r.liquidation_id)).size === rows.length, "ids are unique across pages");
      return;
    }
    case "info": {
      // Rows are untrusted one by one: the engine keeps only usable ones, whatever the others hold.
      check(Array.isArray(d.rows), "rows is an array");
      const { table } = SymbolTable.fromUntrusted((d.rows as unknown[]).map(symbolInfoFromRow));
      for (const info of table.values()) check(info.tier === 1 || info.tier === 2, "a kept symbol's tier is 1 or 2");
      return;
    }
    default:
      return;
  }
}

/**
 * The oracle's own reading of a wire number (docs/protocol.md §9): a JSON number, or a plain decimal string
 * read as the number it spells; any other value is left as it is (and fails the checks).
 */
function wireValue(v: unknown): unknown {
  return typeof v === "string" && /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v) && v.length <= 64 ? Number(v) : v;
}

/**
 * The claim result's fields of docs/protocol.md §A.2.6 only (anything else is ignored by the client),
 * numbers read as the venue may write them; throws on a wrong shape. Every field may be absent.
 */
function claimKnownFields(data: unknown): {
  liquidation_id: unknown;
  timestamp: unknown;
  type: unknown;
  positions_by_perp?: Record<string, unknown>[];
} {
  const d = data as Record<string, unknown>;
  check(typeof d === "object" && d !== null && !Array.isArray(d), "data is an object");
  const fills = d.positions_by_perp as Record<string, unknown>[] | undefined;
  check(fills === undefined || Array.isArray(fills), "positions_by_perp is an array when present");
  const keys = ["symbol", "position_qty", "cost_position_transfer", "transfer_price", "liquidator_fee", "abs_liquidator_fee"] as const;
  return {
    liquidation_id: wireValue(d.liquidation_id),
    timestamp: wireValue(d.timestamp),
    type: d.type,
    ...(fills !== undefined
      ? { positions_by_perp: fills.map((f) => Object.fromEntries(keys.map((k) => [k, k === "symbol" ? f[k] : wireValue(f[k])]))) }
      : {}),
  };
}

/** Whether an accepted answer says completely what the claim transferred (else the private push or the reconcile will). */
function hasCompleteFills(d: ReturnType<typeof claimKnownFields>): boolean {
  const need = ["symbol", "position_qty", "transfer_price", "abs_liquidator_fee"];
  const fills = d.positions_by_perp;
  if (d.timestamp === undefined || fills === undefined) return false;
  return fills.every((p) => need.every((k) => p[k] !== undefined));
}

/** Must this answer be refused whatever its payload? */
function mustReject(r: Reply): boolean {
  if (r.mode !== "normal" || r.status < 200 || r.status > 299) return true;
  try {
    const v = JSON.parse(r.body) as unknown;
    return typeof v !== "object" || v === null || (v as { success?: unknown }).success !== true;
  } catch {
    return true;
  }
}

function checkError(err: unknown): void {
  check(
    err instanceof LiquidatorError,
    () => `rejected with a LiquidatorError, got ${err instanceof Error ? `${err.name}: ${err.message}` : show(err)}`,
  );
  check(ERROR_CODES.has(err.code), () => `error code ${err.code} is one of ${[...ERROR_CODES].join(", ")}`);
  // eslint-disable-next-line no-control-regex
  check(!/[\u0000-\u001f\u007f-\u009f]/.test(err.message), () => `error message carries no control characters: ${show(err.message)}`);
  check(err.message.length <= 1_000, () => `error message is bounded, got ${err.message.length} chars`);
}

async function settled<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the call did not settle within ${SETTLE_DEADLINE_MS} ms`)), SETTLE_DEADLINE_MS);
  });
  try {
    return { ok: true, value: await Promise.race([p, deadline]) };
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("the call did not settle")) throw error;
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

function noPollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const k of ["value", "extra", "polluted", "symbol", "liquidation_id"])
    check(probe[k] === undefined, `Object.prototype.${k} was polluted`);
}

// ── tests ────────────────────────────────────────────────────────────────────────────────────────

describe("RestClient against a server answering garbage", () => {
  const key = generateKeyPair();
  const signer = new Signer({ secret: key.secret, accountId: "0xabc" });

  test("(d1) every call resolves with valid data or rejects with a LiquidatorError", async () => {
    let accepted = 0;
    let run = 0;
    try {
      const scenario = fc
        .constantFrom(...OP_NAMES)
        .chain((op) => fc.tuple(fc.constant(op), fc.array(reply(op), { minLength: 1, maxLength: op === "allOpenLiquidations" ? 2 : 1 })));
      await fc.assert(
        fc.asyncProperty(scenario, async ([op, replies]) => {
          // Each run's requests under a path of their own (see `current`).
          current = `run${++run}`;
          const client = new RestClient({
            baseUrl: `${baseUrl}/${current}`,
            signer,
            timeoutMs: TIMEOUT_MS,
            retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 },
          });
          queue = [...replies];
          const r = await settled(OPS[op].call(client) as Promise<unknown>);
          queue = [];
          await client.close();
          if (r.ok) {
            check(!replies.slice(0, 1).some(mustReject), () => `accepted an answer that must be refused: ${show(replies[0])}`);
            checkAccepted(op, r.value);
            accepted++;
          } else {
            checkError(r.error);
          }
          noPollution();
        }),
        { numRuns: RUNS.calls },
      );
    } finally {
      current = undefined;
    }
    // Not vacuous: valid envelopes (and harmless mutations of them) are accepted.
    expect(accepted).toBeGreaterThan(RUNS.calls / 10);
  });

  test("(d2) a claim response that fails validation never counts as accepted, and nothing escapes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "liq-restfuzz-"));
    const { journal } = Journal.open({ dir, fsyncIntervalMs: 50 });
    const client = new RestClient({ baseUrl, signer, timeoutMs: TIMEOUT_MS, retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } });
    const escaped: unknown[] = [];
    const onEscape = (err: unknown): void => void escaped.push(err);
    process.on("unhandledRejection", onEscape);
    process.on("uncaughtException", onEscape);
    const metrics = createMetrics({ defaultMetrics: false });
    const book = new OpenBook();
    const table = new SymbolTable([{ symbol: "PERP_BTC_USDC", tier: 1, liquidatorFee: 0.006, priceTick: 0.1, minNotional: 10 }]);
    const policy = compileRiskPolicy({
      max_claim_notional: 1e9,
      max_total_exposure: 1e15,
      min_fee: 0,
      limit_price_slippage_bps: 50,
      max_mark_age_ms: 60_000,
      symbols: { allow: [], deny: [] },
    });
    const validAnswer = new Map<number, boolean>();
    let nextId = 1;
    let accepted = 0;
    try {
      await fc.assert(
        fc.asyncProperty(reply("claim"), async (r) => {
          const id = nextId++;
          escaped.length = 0; // judged per run (shrinking replays runs)
          const outcomes: string[] = [];
          const skips: string[] = [];
          // Fresh books per run: fills accepted in earlier runs must not push this one over the caps.
          const marks = new MarkBook();
          for (const [s, p] of [
            ["PERP_BTC_USDC", 100_000],
            ["PERP_ETH_USDC", 3_000],
            ["PERP_DOGE_USDC", 0.2],
          ] as const)
            marks.set(s, p, Date.now());
          const exposure = new Exposure();
          const ctx: PolicyContext = { policy, symbols: table, marks, exposure };
          const { claimer } = coreOn({
            decide: (liq, now) => decide(liq, ctx, now),
            book,
            exposure,
            positions: new PositionBook(exposure),
            acquire: async () => {},
            sender: new ClaimSender(client, false),
            store: new FileStore(journal, "test"),
            // As the daemon wires it: real prom-client counters (a counter refuses to go down).
            skipped: (reason) => {
              metrics.claimsSkipped.inc({ reason });
              skips.push(reason);
            },
            observer: {
              submitted: () => metrics.claimsSubmitted.inc(),
              result: (result, code) => {
                metrics.claimsResult.inc({ result, code });
                outcomes.push(result);
              },
              decisionLatency: (s) => metrics.decisionLatency.observe(s),
              feeEarned: (s, amount) => metrics.feeEarned.inc({ symbol: s }, amount),
            },
          });
          const heldBefore = exposure.netQty("PERP_BTC_USDC");
          const feesBefore = await feeTotal(metrics);
          book.applyDelta(
            [
              {
                liquidationId: id,
                timestamp: Date.now(),
                positions: [{ symbol: "PERP_BTC_USDC", positionQty: 0.05, liquidatorFee: 0.006 }],
              },
            ],
            Date.now(),
          );
          queue = [r];
          claimer.start();
          claimer.offer(book.get(id)!);
          await waitFor(() => outcomes.length + skips.length + escaped.length > 0, "an outcome", SETTLE_DEADLINE_MS, 1).catch(
            () => undefined,
          );
          // Let a rejection that nobody handles surface before judging.
          await new Promise((res) => setImmediate(res));
          await sleep(0); // one timer turn more: a rejection nobody handles surfaces there
          await claimer.stop();
          queue = [];
          book.remove(id);
          check(
            escaped.length === 0,
            () => `an error escaped the claim's handling: ${escaped.map((e) => (e instanceof Error ? e.message : show(e))).join("; ")}`,
          );
          // A retry (after -1011, -1012, -1003...) may add outcomes; its answer is the fallback -1202.
          check(skips.length === 0, () => `the claim was sent, not skipped (${show(skips)})`);
          check(outcomes.length >= 1, "the claim has an outcome");
          check(outcomes.filter((o) => o === "success").length <= 1, () => `at most one success per claim, got ${show(outcomes)}`);
          let valid = !mustReject(r);
          let fillQty = 0;
          let lean = false;
          if (valid) {
            try {
              // The client ignores fields it does not know (the venue adds fields), so the oracle judges
              // only the known ones: an extra `"x": 1e400` beside them does not make the answer invalid.
              const data = claimKnownFields((JSON.parse(r.body) as { data: unknown }).data);
              checkAccepted("claim", data);
              // A lean answer is held at the quantity requested (pending) until a position report
              // says what was transferred; a complete one at its fills.
              lean = !hasCompleteFills(data);
              if (!lean)
                for (const p of data.positions_by_perp ?? []) if (p.symbol === "PERP_BTC_USDC") fillQty += p.position_qty as number;
            } catch {
              valid = false; // the oracle: anything that breaks the invariants is invalid data
            }
          }
          const success = outcomes.includes("success");
          validAnswer.set(id, success);
          const held = exposure.netQty("PERP_BTC_USDC");
          const feesAfter = await feeTotal(metrics);
          if (success) {
            check(valid, () => `an answer that fails validation counted as success: ${show(r)}`);
            if (lean) {
              // At most the 0.05 offered, and something: the request's quantity.
              const added = held - heldBefore;
              check(added > 0 && added <= 0.05 + 1e-9, () => `a lean answer holds the requested quantity: ${heldBefore} + ${added}`);
            } else {
              const expected = heldBefore + fillQty;
              check(
                Math.abs(held - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
                () => `held exposure ${held} = ${heldBefore} + the fills ${fillQty}`,
              );
            }
            check(feesAfter >= feesBefore, "fees only grow");
            accepted++;
            return;
          }
          check(held === heldBefore, () => `a claim not accepted changes no held exposure (${heldBefore} → ${held})`);
          check(feesAfter === feesBefore, "a claim not accepted earns no fee");
        }),
        { numRuns: RUNS.claimer },
      );
      await journal.close();
      // The journal says `accepted` exactly for the claims counted as success.
      const replay = parseJournal(readFileSync(join(dir, JOURNAL_FILE), "utf8"));
      for (const [id, success] of validAnswer) {
        const acceptedRecord = (replay.outcomes.get(id) ?? []).some((o) => o.result === "accepted");
        expect(acceptedRecord, `journal outcome of claim ${id}`).toBe(success);
      }
      expect(accepted).toBeGreaterThan(RUNS.claimer / 20);
    } finally {
      process.off("unhandledRejection", onEscape);
      process.off("uncaughtException", onEscape);
      await journal.close();
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function feeTotal(metrics: ReturnType<typeof createMetrics>): Promise<number> {
  const m = await metrics.feeEarned.get();
  return m.values.reduce((a, v) => a + v.value, 0);
}
