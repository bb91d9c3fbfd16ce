/**
 * The opportunity ledger's pieces: the fold and verdict of each liquidation (store/opportunityFold.ts,
 * engine/opportunities.ts) worked by hand, the totals adding up (engine/ledgerTotals.ts), the live
 * ledger (daemon/records/opportunityLedger.ts: batched writes, a fate counted once and only once sealed, an
 * intent in flight while the database writes it), the journal reading old and new records alike,
 * and the report's day and markouts slot.
 */
import { describe, expect, it } from "vitest";
import { renderLedgerHtml } from "../../src/commands/reportHtml.js";
import { buildLedgerReport, dayStart } from "../../src/commands/reportLedger.js";
import { reportJson, reportTable } from "../../src/commands/reportOutput.js";
import type { IntentRecord, JournalRecord, OutcomeRecord } from "../../src/core/journalRecords.js";
import { OpportunityLedger } from "../../src/daemon/records/opportunityLedger.js";
import { ledgerTotals } from "../../src/engine/ledgerTotals.js";
import { classifyOpportunityForTests, type OpportunityRow, opportunityRows } from "../../src/engine/opportunities.js";
import type { ClaimDecision } from "../../src/engine/types.js";
import { parseJournal } from "../../src/store/journalReplay.js";
import { OpportunityFold } from "../../src/store/opportunityFold.js";
import { waitFor } from "../support/wait.js";

const T0 = Date.parse("2026-11-26T10:00:00Z");
const seen = (id: number, at: number, fees: Record<string, number> = { PERP_ETH_USDC: 10 }): JournalRecord => ({ t: "seen", id, at, fees });
const skip = (id: number, at: number, reason: string): JournalRecord => ({ t: "skip", id, at, reason });
const gone = (id: number, at: number, wanted = false): JournalRecord => ({ t: "gone", id, at, wanted });
const intent = (id: number, at: number, dryRun = false): IntentRecord => ({
  t: "intent",
  id,
  at,
  ratio: 1,
  limitPrice: { PERP_ETH_USDC: 3000 },
  expectedFee: 7,
  perSymbolQty: { PERP_ETH_USDC: 1 },
  ...(dryRun ? { dryRun } : {}),
});
const outcome = (id: number, at: number, result: OutcomeRecord["result"], code?: number): OutcomeRecord => ({
  t: "outcome",
  id,
  at,
  result,
  ...(code !== undefined ? { code } : {}),
});

function verdict(records: JournalRecord[]): OpportunityRow {
  const fold = new OpportunityFold();
  for (const r of records) fold.add(r);
  const f = fold.facts.get(1);
  if (f === undefined) throw new Error("no facts");
  return classifyOpportunityForTests(f);
}

describe("a partly claimed liquidation: what we got, and the rest by cause", () => {
  const rows = (records: JournalRecord[]): OpportunityRow[] => {
    const fold = new OpportunityFold();
    for (const r of records) fold.add(r);
    return opportunityRows(fold.facts.get(1) as never);
  };
  // First push: 4 ETH worth 40 of fee (10 per ETH at its marks).
  const first: JournalRecord = { t: "seen", id: 1, at: T0, fees: { PERP_ETH_USDC: 40 }, qty: { PERP_ETH_USDC: 4 } };
  const sent = (open: number, asked: number): IntentRecord => ({
    ...intent(1, T0 + 100),
    perSymbolQty: { PERP_ETH_USDC: asked },
    open: [{ symbol: "PERP_ETH_USDC", positionQty: open, liquidatorFee: 0.01 }],
    expectedFee: asked * 10,
  });
  const got = (qty: number, fee: number): JournalRecord => ({
    ...outcome(1, T0 + 150, "accepted"),
    fills: [{ symbol: "PERP_ETH_USDC", qty, price: 3000, fee }],
  });

  it("captured is the fee of what the venue assigned, not the whole's; the part a cap cut is a skipped row with the cap", () => {
    const r = rows([first, sent(4, 1), { t: "skip", id: 1, at: T0 + 100, reason: "max_claim_notional", cut: true }, got(1, 10.5)]);
    expect(r.map((x) => [x.outcome, x.reason, x.part, x.value])).toEqual([
      ["claimed", "", "claimed", 10.5],
      ["skipped", "max_claim_notional", "rest", 30],
    ]);
    expect(r[0]).toMatchObject({ expected_fee: 40, claimed_fee: 10.5, supply: "liquidation" });
    expect(r[1]).toMatchObject({ expected_fee: 40, claimed_fee: null, liquidation_id: 1 });
  });

  it("taken by a rival before our claim (it shrank), and asked for but not assigned (it stayed on the list)", () => {
    // 1 ETH gone to someone else before we decided; we asked 3 (all that was open), got 2.
    const r = rows([first, sent(3, 3), got(2, 20)]);
    expect(r.map((x) => [x.outcome, x.reason, x.value])).toEqual([
      ["claimed", "", 20],
      ["lost", "taken", 10],
      ["expired", "left", 10],
    ]);
  });

  it("a whole claim is one row; a journal without the first push's quantities uses the open ones", () => {
    expect(rows([first, sent(4, 4), got(4, 41)]).map((x) => [x.outcome, x.part, x.value])).toEqual([["claimed", "whole", 41]]);
    const old: JournalRecord = { t: "seen", id: 1, at: T0, fees: { PERP_ETH_USDC: 40 } };
    expect(rows([old, sent(4, 2), got(2, 20)]).map((x) => [x.outcome, x.reason, x.value])).toEqual([
      ["claimed", "", 20],
      ["skipped", "not_requested", 20],
    ]);
  });
});

describe("one liquidation's verdict", () => {
  it("claimed wins over an earlier skip; the claimed fee is the claim's", () => {
    const r = verdict([seen(1, T0), skip(1, T0 + 5, "mark_stale"), intent(1, T0 + 900), outcome(1, T0 + 950, "accepted")]);
    expect(r).toMatchObject({ outcome: "claimed", reason: "", expected_fee: 10, claimed_fee: 7, ended_at: T0 + 950 });
  });

  it("refused as taken (-1202): lost, with the time from the first push and from our send", () => {
    const r = verdict([seen(1, T0), intent(1, T0 + 40), outcome(1, T0 + 100, "rejected", -1202), gone(1, T0 + 300)]);
    expect(r).toMatchObject({ outcome: "lost", reason: "taken", lost_after_first_push_ms: 100, lost_after_send_ms: 60 });
  });

  it("another claim in process (-1012) and then gone: lost to that rival, at the refusal", () => {
    const r = verdict([seen(1, T0), intent(1, T0 + 10), outcome(1, T0 + 30, "rejected", -1012), gone(1, T0 + 500)]);
    expect(r).toMatchObject({ outcome: "lost", reason: "taken", lost_after_first_push_ms: 30, lost_after_send_ms: 20 });
  });

  it("gone while our claim waited its turn: lost, never sent", () => {
    const r = verdict([seen(1, T0), gone(1, T0 + 250, true)]);
    expect(r).toMatchObject({ outcome: "lost", reason: "left_while_queued", lost_after_first_push_ms: 250, lost_after_send_ms: null });
  });

  it("skipped: the last skip reason", () => {
    expect(verdict([seen(1, T0), skip(1, T0, "mark_stale"), skip(1, T0 + 1000, "exposure_cap"), gone(1, T0 + 2000)])).toMatchObject({
      outcome: "skipped",
      reason: "exposure_cap",
    });
    // A dry-run decision is its own outcome, neither skipped nor missed.
    expect(verdict([seen(1, T0), intent(1, T0 + 1, true), outcome(1, T0 + 1, "dry_run")])).toMatchObject({
      outcome: "dry_run",
      reason: "",
    });
  });

  it("a send ends an earlier skip: refused for no rival's reason and gone is expired with that refusal", () => {
    const r = verdict([
      seen(1, T0),
      skip(1, T0, "exposure_cap"),
      intent(1, T0 + 500),
      outcome(1, T0 + 520, "rejected", -1201),
      gone(1, T0 + 900),
    ]);
    expect(r).toMatchObject({ outcome: "expired", reason: "ratio_too_small", lost_after_first_push_ms: null });
  });

  it("gone with nothing pending: expired; no end seen: expired too, said so; the earliest first push counts", () => {
    expect(verdict([seen(1, T0), gone(1, T0 + 60_000)])).toMatchObject({ outcome: "expired", reason: "left" });
    expect(verdict([seen(1, T0 + 10), seen(1, T0, { PERP_ETH_USDC: 4 })])).toMatchObject({
      outcome: "expired",
      reason: "no_end_seen",
      first_seen: T0,
      expected_fee: 4,
    });
  });
});

describe("ledger totals", () => {
  it("outcomes, reasons, symbols and hours each add up to the whole", () => {
    const fold = new OpportunityFold();
    const records: JournalRecord[] = [
      // Half of it claimed (cut by the claim cap): its claimed row counts what the venue assigned.
      { t: "seen", id: 1, at: T0, fees: { PERP_ETH_USDC: 10, PERP_BTC_USDC: 5 }, qty: { PERP_ETH_USDC: 2, PERP_BTC_USDC: 0.25 } },
      {
        ...intent(1, T0 + 1),
        ratio: 0.5,
        perSymbolQty: { PERP_ETH_USDC: 1, PERP_BTC_USDC: 0.125 },
        open: [
          { symbol: "PERP_ETH_USDC", positionQty: 2, liquidatorFee: 0.01 },
          { symbol: "PERP_BTC_USDC", positionQty: 0.25, liquidatorFee: 0.01 },
        ],
      },
      { t: "skip", id: 1, at: T0 + 1, reason: "max_claim_notional", cut: true },
      {
        ...outcome(1, T0 + 2, "accepted"),
        fills: [
          { symbol: "PERP_ETH_USDC", qty: 1, price: 3000, fee: 5.25 },
          { symbol: "PERP_BTC_USDC", qty: 0.125, price: 90_000, fee: 2.25 },
        ],
      },
      seen(2, T0 + 3_600_000, { PERP_ETH_USDC: 3 }),
      skip(2, T0 + 3_600_000, "below_min_fee"),
      seen(3, T0 + 3_600_001, { PERP_SOL_USDC: 2 }),
      skip(3, T0 + 3_600_001, "symbol_denied"),
      seen(4, T0, { PERP_SOL_USDC: 1 }),
      gone(4, T0 + 9, true),
    ];
    for (const r of records) fold.add(r);
    const t = ledgerTotals([...fold.facts.values()].flatMap(opportunityRows));
    const none = { count: 0, value: 0 };
    expect(t).toMatchObject({
      liquidations: 4,
      rows: 5,
      value: 21,
      captured: { count: 1, value: 7.5 },
      missed: { count: 4, value: 13.5 },
      dry_run: none,
    });
    expect(t.by_outcome).toEqual({
      claimed: { count: 1, value: 7.5 },
      lost: { count: 1, value: 1 },
      skipped: { count: 3, value: 12.5 },
      expired: none,
      dry_run: none,
    });
    expect(t.missed_by_reason).toEqual([
      { outcome: "skipped", reason: "max_claim_notional", count: 1, value: 7.5 },
      { outcome: "skipped", reason: "below_min_fee", count: 1, value: 3 },
      { outcome: "skipped", reason: "symbol_denied", count: 1, value: 2 },
      { outcome: "lost", reason: "left_while_queued", count: 1, value: 1 },
    ]);
    expect(t.policy_cost.map((b) => [b.reason, b.value])).toEqual([
      ["max_claim_notional", 7.5],
      ["below_min_fee", 3],
      ["symbol_denied", 2],
    ]);
    expect(t.by_symbol.PERP_ETH_USDC).toEqual({ captured: { count: 1, value: 5.25 }, missed: { count: 2, value: 8 }, dry_run: none });
    expect(t.by_symbol.PERP_BTC_USDC).toEqual({ captured: { count: 1, value: 2.25 }, missed: { count: 1, value: 2.5 }, dry_run: none });
    expect(t.by_symbol.PERP_SOL_USDC).toEqual({ captured: none, missed: { count: 2, value: 3 }, dry_run: none });
    expect(t.by_hour).toEqual({
      "10": { captured: { count: 1, value: 7.5 }, missed: { count: 2, value: 8.5 }, dry_run: none },
      "11": { captured: none, missed: { count: 2, value: 5 }, dry_run: none },
    });
    // Every breakdown adds up to the total at stake.
    const sumOf = (bs: { value: number }[]) => bs.reduce((a, b) => a + b.value, 0);
    expect(sumOf(Object.values(t.by_outcome))).toBeCloseTo(t.value, 9);
    expect(sumOf(Object.values(t.by_symbol).flatMap((s) => [s.captured, s.missed, s.dry_run]))).toBeCloseTo(t.value, 9);
  });
});

/** A store that keeps what the ledger writes; `intent` answers when the test says (the database). */
function fakeStore(leading = true) {
  const written: JournalRecord[] = [];
  let answer: { resolve: () => void; reject: (e: Error) => void } | undefined;
  return {
    written,
    leading,
    answer: () => answer,
    store: {
      append: (r: JournalRecord) => void written.push(r),
      mayLead: () => leading,
      recover: () => true,
      intent: (r: JournalRecord) => {
        written.push(r);
        return new Promise<undefined>((resolve, reject) => {
          answer = { resolve: () => resolve(undefined), reject };
        });
      },
    },
  };
}

const liq = (id: number, qty = 2) => ({
  liquidationId: id,
  timestamp: T0,
  positions: [{ symbol: "PERP_ETH_USDC", positionQty: qty, liquidatorFee: 0.01 }],
});

describe("the live ledger", () => {
  it("a claim the policy cut is recorded with what cut it, and its rows are counted apart once assigned", () => {
    const s = fakeStore();
    const settled: [string, string, number][] = [];
    const ledger = new OpportunityLedger({
      store: s.store,
      price: () => 3000,
      settled: (o, r, v) => void settled.push([o, r, v]),
      flushMs: 60_000,
    });
    const journal = ledger.readingAlong(s.store);
    ledger.seen(liq(1, 4), T0); // 4 ETH at 3,000, 1 %: 120 at stake
    ledger.decided({ action: "claim", liquidationId: 1, cut: "max_claim_notional" } as ClaimDecision);
    void journal.intent({
      ...intent(1, T0 + 5),
      perSymbolQty: { PERP_ETH_USDC: 1 },
      open: [{ symbol: "PERP_ETH_USDC", positionQty: 4, liquidatorFee: 0.01 }],
    });
    s.answer()?.resolve();
    journal.append({ ...outcome(1, T0 + 9, "accepted"), fills: [{ symbol: "PERP_ETH_USDC", qty: 1, price: 3000, fee: 30 }] });
    expect(settled).toEqual([
      ["claimed", "", 30],
      ["skipped", "max_claim_notional", 90],
    ]);
    ledger.flush();
    expect(s.written.filter((r) => r.t === "skip")).toEqual([{ t: "skip", id: 1, at: T0 + 5, reason: "max_claim_notional", cut: true }]);
  });

  it("each fate is counted with its supply (the insurance fund's rows apart from liquidations)", () => {
    const s = fakeStore();
    const supplies: string[] = [];
    const ledger = new OpportunityLedger({
      store: s.store,
      price: () => 3000,
      settled: (...a) => void supplies.push(a[3]),
      flushMs: 60_000,
    });
    ledger.seen(liq(1), T0);
    ledger.seen({ ...liq(2), type: "claim" }, T0);
    ledger.skipped(1, "min_fee");
    ledger.skipped(2, "min_fee");
    ledger.left(1, false);
    ledger.left(2, false);
    expect(supplies).toEqual(["liquidation", "insurance_fund"]);
  });

  it("writes in one batch off the call, values the first push at its marks, and counts a fate once it is sealed", () => {
    const s = fakeStore();
    const settled: [string, string, number][] = [];
    const ledger = new OpportunityLedger({
      store: s.store,
      price: () => 3000,
      settled: (o, r, v) => void settled.push([o, r, v]),
      now: () => T0 + 50,
      flushMs: 60_000,
    });
    ledger.seen(liq(1), T0);
    ledger.seen(liq(1, 1), T0 + 10); // a change: the first push stays
    ledger.skipped(1, "exposure_cap");
    expect(s.written).toEqual([]);
    expect(settled).toEqual([]);
    ledger.left(1, false);
    expect(settled).toEqual([["skipped", "exposure_cap", 60]]);
    expect(ledger.size).toBe(0);
    ledger.left(1, false); // forgotten: nothing more is written about it
    ledger.flush();
    expect(s.written).toEqual([
      { t: "seen", id: 1, at: T0, venueTs: T0, fees: { PERP_ETH_USDC: 60 }, qty: { PERP_ETH_USDC: 2 } },
      { t: "skip", id: 1, at: T0 + 50, reason: "exposure_cap" },
      { t: "gone", id: 1, at: T0 + 50, wanted: false },
    ]);
  });

  it("a big buffer is written a few ms per turn, in order, all of it in the end", async () => {
    const written: number[] = [];
    const perTurn: number[] = [];
    let inTurn = false;
    const store = {
      append: (r: JournalRecord) => {
        const end = performance.now() + 1.5;
        while (performance.now() < end); // a slow write(2)
        if (!inTurn) {
          inTurn = true;
          perTurn.push(0);
          queueMicrotask(() => (inTurn = false)); // runs once this turn's callback returns
        }
        perTurn[perTurn.length - 1] = (perTurn.at(-1) ?? 0) + 1;
        written.push((r as { id: number }).id);
      },
      mayLead: () => true,
    };
    const ledger = new OpportunityLedger({ store, price: () => 3000, settled: () => undefined, flushMs: 1 });
    for (let id = 1; id <= 12; id++) ledger.seen(liq(id), T0);
    await waitFor(() => written.length >= 12, "twelve writes", 20_000, 5);
    expect(written).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    // 2 ms are up after the second write of a turn, however slow the machine: never 3 in one turn.
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(2);
  });

  it("an id that leaves while its intent is being written waits for the answer: lost when the venue says taken", async () => {
    const s = fakeStore();
    const settled: [string, string, number][] = [];
    const ledger = new OpportunityLedger({
      store: s.store,
      price: () => 3000,
      settled: (o, r, v) => void settled.push([o, r, v]),
      flushMs: 60_000,
    });
    const store = ledger.readingAlong(s.store);
    ledger.seen(liq(1), T0);
    const written = store.intent(intent(1, T0 + 5));
    ledger.left(1, false); // in flight: not "queued", and not settled either
    expect(settled).toEqual([]);
    s.answer()?.resolve();
    await written;
    store.append(outcome(1, T0 + 40, "rejected", -1202));
    expect(settled).toEqual([["lost", "taken", 60]]);
    expect(ledger.size).toBe(0);
  });

  it("an intent the store refused sent nothing: the departure settles it", async () => {
    const s = fakeStore();
    const settled: [string, string, number][] = [];
    const ledger = new OpportunityLedger({
      store: s.store,
      price: () => 3000,
      settled: (o, r, v) => void settled.push([o, r, v]),
      flushMs: 60_000,
    });
    const store = ledger.readingAlong(s.store);
    ledger.seen(liq(1), T0);
    const written = store.intent(intent(1, T0 + 5));
    s.answer()?.reject(new Error("database away"));
    await expect(written).rejects.toThrow("database away");
    ledger.left(1, true);
    expect(settled).toEqual([["lost", "left_while_queued", 60]]);
  });

  it("a standby writes and counts nothing", () => {
    const s = fakeStore(false);
    const settled: unknown[] = [];
    const ledger = new OpportunityLedger({ store: s.store, price: () => 3000, settled: (o, r, v) => void settled.push([o, r, v]) });
    ledger.seen(liq(1), T0);
    ledger.skipped(1, "mark_stale");
    ledger.left(1, false);
    ledger.flush();
    expect(s.written).toEqual([]);
    expect(settled).toEqual([]);
  });
});

describe("journal and report", () => {
  it('hours and symbols are listed in order (an object puts "10" before "00")', () => {
    const report = buildLedgerReport([seen(1, T0), seen(2, T0 - 36_000_000)], "2026-11-26");
    expect(reportTable(report)).toMatch(/Per hour[^\n]*\n[^\n]*\n[^\n]*\n00 [^\n]*\n10 /);
    expect(renderLedgerHtml(report)).toMatch(/<td>00:00<\/td>[\s\S]*<td>10:00<\/td>/);
  });

  it("the journal reads the ledger's records and replays old journals as before", () => {
    const lines = [seen(1, T0), skip(1, T0, "mark_stale"), gone(1, T0 + 1)].map((r) => JSON.stringify(r));
    const replay = parseJournal(`${lines.join("\n")}\n`);
    expect(replay).toMatchObject({ records: 3, corruptLines: 0 });
    expect(replay.intents.size).toBe(0);
    expect(parseJournal(`${JSON.stringify(intent(2, T0))}\n`)).toMatchObject({ records: 1, corruptLines: 0 });
  });

  it("a day holds the liquidations first seen in it; markouts render when given, and only then", () => {
    const day = "2026-11-26";
    expect(() => dayStart("2026-02-30")).toThrow(/YYYY-MM-DD/);
    const records = [seen(1, dayStart(day) - 1), seen(2, dayStart(day)), seen(3, dayStart(day) + 86_400_000)];
    const plain = buildLedgerReport(records, day);
    expect(plain.liquidations.map((l) => l.liquidation_id)).toEqual([2]);
    expect(JSON.parse(reportJson(plain))).not.toHaveProperty("markouts");
    expect(renderLedgerHtml(plain)).not.toContain('id="markouts"');
    const withMarkouts = buildLedgerReport(records, day, {
      PERP_ETH_USDC: { "1s": { mean_bps: 2.5, count: 4 }, "300s": { mean_bps: -11, count: 3 } },
    });
    expect(JSON.parse(reportJson(withMarkouts)).markouts.PERP_ETH_USDC["1s"]).toEqual({ mean_bps: 2.5, count: 4 });
    expect(reportTable(withMarkouts)).toMatch(/Markouts per symbol[\s\S]*PERP_ETH_USDC\s+2\.5 \(4\)\s+-11\.0 \(3\)/);
    expect(renderLedgerHtml(withMarkouts)).toContain('id="markouts"');
  });
});
