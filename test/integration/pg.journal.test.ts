/**
 * The journal's content against a real PostgreSQL: one intent per id (the database refuses a second,
 * however many race), re-claims only from re-claimable states, outcomes moving states but never out
 * of a settled one nor for a stale attempt, orders keyed by client order id, replay equal to the file
 * journal's replay of the same records (in small batches), and the file-journal import.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { IntentRecord, JournalRecord, OrderIntentRecord, OrderOutcomeRecord } from "../../src/core/journalRecords.js";
import { DuplicateClaimError } from "../../src/errors.js";
import { Journal } from "../../src/store/fileJournal.js";
import { parseJournal } from "../../src/store/journalReplay.js";
import { PgStore } from "../../src/store/postgres/pgStore.js";
import { removeDir, tempDir } from "../support/daemonHarness.js";
import { describeWithPostgres, type PgCluster, startPgCluster } from "../support/pgCluster.js";

const intent = (id: number, extra: Partial<IntentRecord> = {}): IntentRecord => ({
  t: "intent",
  id,
  at: 1_700_000_000_000 + id,
  ratio: 0.5,
  symbols: [{ symbol: "PERP_ETH_USDC", ratio_qty_request: 0.25 }],
  limitPrice: { PERP_ETH_USDC: 3001.5 },
  expectedFee: 1.25,
  perSymbolQty: { PERP_ETH_USDC: -0.125 },
  ...extra,
});

const order = (clientOrderId: string, liquidationId?: number): OrderIntentRecord => ({
  t: "order_intent",
  clientOrderId,
  at: 1_700_000_000_500,
  symbol: "PERP_ETH_USDC",
  side: "BUY",
  orderType: "IOC",
  price: 3010.25,
  quantity: 0.125,
  reduceOnly: true,
  ...(liquidationId !== undefined ? { liquidationId } : {}),
});

describeWithPostgres("PostgreSQL store: journal", () => {
  let cluster: PgCluster | undefined;
  let dir: string | undefined;
  const stores: PgStore[] = [];

  beforeAll(async () => {
    // Durable commits (the helper's default is fsync off): the intent latency measured here is real.
    cluster = await startPgCluster({ settings: { fsync: "on", synchronous_commit: "on", full_page_writes: "on" } });
    dir = await tempDir("pg-journal");
  });
  afterAll(async () => {
    await Promise.allSettled(stores.map((s) => s.close()));
    await cluster?.destroy();
    await removeDir(dir);
  });

  /** A store that leads its own fresh account at term 1. */
  const leader = async (accountId = randomUUID()): Promise<PgStore> => {
    const store = await PgStore.open({ url: cluster!.url, accountId, replicaId: "r1", leaseMs: 60_000, renewMs: 1_000 });
    stores.push(store);
    expect(await store.lease.tryAcquire()).toBe(1);
    return store;
  };

  it("refuses a second intent for an id, however many race for it", async () => {
    const s = await leader();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => s.journal.claimIntent(intent(7), 1)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect(r.reason).toBeInstanceOf(DuplicateClaimError);
      expect(r.reason).toMatchObject({ code: "LIQ_DUPLICATE", state: "intent" });
    }
    await s.journal.claimOutcome({ t: "outcome", id: 7, at: 1, result: "accepted", fills: [], venueTs: 5 });
    await expect(s.journal.claimIntent(intent(7), 1)).rejects.toMatchObject({ code: "LIQ_DUPLICATE", state: "accepted" });
    expect((await s.replay()).intents.size).toBe(1);
  });

  it("allows a new intent only from a re-claimable state, counting attempts", async () => {
    const s = await leader();
    const j = s.journal;
    const cases: { outcome: JournalRecord & { t: "outcome" }; reclaimable?: boolean; again: boolean }[] = [
      { outcome: { t: "outcome", id: 1, at: 1, result: "dry_run" }, again: true },
      { outcome: { t: "outcome", id: 2, at: 1, result: "not_accepted" }, again: true },
      { outcome: { t: "outcome", id: 3, at: 1, result: "rejected", code: -1011 }, reclaimable: true, again: true },
      { outcome: { t: "outcome", id: 4, at: 1, result: "rejected", code: -1202 }, again: false },
      { outcome: { t: "outcome", id: 5, at: 1, result: "unknown" }, again: false },
      { outcome: { t: "outcome", id: 6, at: 1, result: "confirmed", fills: [] }, again: false },
    ];
    for (const c of cases) {
      const { attempt } = await j.claimIntent(intent(c.outcome.id), 1);
      await j.claimOutcome(c.outcome, { attempt, reclaimable: c.reclaimable === true });
      const again = j.claimIntent(intent(c.outcome.id, { expectedFee: 2 }), 1);
      if (c.again) expect(await again).toEqual({ attempt: 2 });
      else await expect(again).rejects.toBeInstanceOf(DuplicateClaimError);
    }
    expect(await j.claimState(3)).toEqual({ state: "intent", attempt: 2, term: 1 });
    expect(await j.claimState(4)).toMatchObject({ state: "rejected", attempt: 1 });
    expect((await s.replay()).intents.get(1)?.expectedFee).toBe(2);
  });

  it("an outcome never unsettles a claim, and a stale attempt's outcome leaves the state alone", async () => {
    const s = await leader();
    const j = s.journal;
    await j.claimIntent(intent(1), 1);
    await j.claimOutcome({ t: "outcome", id: 1, at: 1, result: "unknown" }, { attempt: 1 });
    await j.claimOutcome({ t: "outcome", id: 1, at: 2, result: "confirmed", fills: [] }, { attempt: 1 });
    await j.claimOutcome({ t: "outcome", id: 1, at: 3, result: "not_accepted" }, { attempt: 1 });
    expect(await j.claimState(1)).toMatchObject({ state: "confirmed" });

    await j.claimIntent(intent(2), 1);
    await j.claimOutcome({ t: "outcome", id: 2, at: 1, result: "not_accepted" }, { attempt: 1 });
    await j.claimIntent(intent(2), 1);
    await j.claimOutcome({ t: "outcome", id: 2, at: 2, result: "dry_run" }, { attempt: 1 }); // late, for attempt 1
    expect(await j.claimState(2)).toMatchObject({ state: "intent", attempt: 2 });
    // Every outcome is journaled all the same.
    expect((await s.replay()).outcomes.get(2)?.map((o) => o.result)).toEqual(["not_accepted", "dry_run"]);
  });

  it("orders: one intent per client order id, states from outcomes", async () => {
    const s = await leader();
    const j = s.journal;
    expect(await j.orderIntent(order("u-9-1", 9), 1)).toEqual({ attempt: 1 });
    await expect(j.orderIntent(order("u-9-1", 9), 1)).rejects.toMatchObject({ code: "LIQ_DUPLICATE", state: "intent" });
    await j.orderOutcome({ t: "order_outcome", clientOrderId: "u-9-1", at: 1, result: "accepted", orderId: 13 });
    await j.orderOutcome({ t: "order_outcome", clientOrderId: "u-9-1", at: 2, result: "filled", filledQty: 0.125, avgPrice: 3005 });
    await j.orderOutcome({ t: "order_outcome", clientOrderId: "u-9-1", at: 3, result: "unknown" });
    expect(await j.orderState("u-9-1")).toMatchObject({ state: "filled", attempt: 1, term: 1 });
    await j.orderIntent(order("u-9-2"), 1);
    await j.orderOutcome({ t: "order_outcome", clientOrderId: "u-9-2", at: 1, result: "rejected", code: -1011 }, { reclaimable: true });
    expect(await j.orderIntent(order("u-9-2"), 1)).toEqual({ attempt: 2 });
  });

  it("replay, read in small batches, equals the file journal's replay of the same records", async () => {
    const s = await leader();
    const j = s.journal;
    const written: JournalRecord[] = [];
    const orders: (OrderIntentRecord | OrderOutcomeRecord)[] = [];
    for (let id = 1; id <= 40; id++) {
      const dryRun = id % 9 === 0;
      const rec = intent(id, dryRun ? { dryRun } : {});
      const { attempt } = await j.claimIntent(rec, 1);
      written.push(rec);
      const outcome: JournalRecord =
        id % 4 === 0
          ? { t: "outcome", id, at: rec.at + 1, result: "rejected", code: -1011 }
          : id % 3 === 0
            ? { t: "outcome", id, at: rec.at + 1, result: "unknown" }
            : {
                t: "outcome",
                id,
                at: rec.at + 1,
                result: "accepted",
                fills: [{ symbol: "PERP_ETH_USDC", qty: -0.125, price: 3000.1, fee: 0.3 }],
                venueTs: rec.at,
              };
      if (dryRun) continue; // in flight at a kill: an intent and no outcome
      await j.claimOutcome(outcome, { attempt, reclaimable: outcome.result === "rejected" });
      written.push(outcome);
      if (id % 4 === 0) {
        const retry = intent(id, { at: rec.at + 2, expectedFee: 9.5 });
        await j.claimIntent(retry, 1);
        written.push(retry);
      }
      if (id % 10 === 0) {
        const positions: JournalRecord = { t: "positions", at: rec.at + 3, venueTs: rec.at + 3, held: { PERP_ETH_USDC: -id / 8 } };
        await j.positionsSnapshot(positions);
        written.push(positions);
        const o = order(`u-${id}-1`, id);
        const done: OrderOutcomeRecord = { t: "order_outcome", clientOrderId: o.clientOrderId, at: 2, result: "filled", filledQty: 0.125 };
        await j.orderIntent(o, 1);
        await j.orderOutcome(done);
        orders.push(o, done);
        // The claimed accounting's own records (unwind.scope: claimed).
        const mode: JournalRecord = { t: "claim_mode", id, symbol: "PERP_ETH_USDC", marginMode: "ISOLATED", at: rec.at + 4 };
        const base: JournalRecord = {
          t: "claimed_base",
          symbol: "PERP_ETH_USDC",
          marginMode: "CROSS",
          claimed: -id / 8,
          unwound: 0.125,
          at: rec.at + 5,
        };
        await j.event(mode);
        await j.event(base);
        written.push(mode, base);
      }
    }
    const expected = parseJournal(written.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const replay = await s.replay({ batchSize: 7 });
    expect(replay.intents).toEqual(expected.intents);
    expect(replay.outcomes).toEqual(expected.outcomes);
    expect(replay.positions).toEqual(expected.positions);
    expect(replay.claimed).toEqual(expected.claimed);
    expect(replay.claimed.bases.get("PERP_ETH_USDC CROSS")?.claimed).toBe(-5);
    expect(replay.records).toBe(written.length + orders.length);
    expect([...replay.orders.intents.keys()]).toEqual(["u-10-1", "u-20-1", "u-30-1", "u-40-1"]);
    expect(replay.orders.outcomes.get("u-40-1")).toEqual([orders.at(-1)]);
  });

  it("an intent is one round trip: one statement per intent", async () => {
    const s = await leader();
    // Every statement the process sends goes through pg.Client#query (the pool's clients included);
    // the lease keeper's renewals (1 s) add a few over the run, a second round trip per intent 500.
    const queries = vi.spyOn(pg.Client.prototype, "query");
    const n = 500;
    const started = performance.now();
    for (let id = 1; id <= n; id++) await s.journal.claimIntent(intent(id), 1);
    const ms = performance.now() - started;
    const sent = queries.mock.calls.length;
    queries.mockRestore();
    process.stderr.write(`NOTE: fenced claim intent on loopback: ${(ms / n).toFixed(3)} ms mean (n=${n})\n`);
    expect(sent).toBeGreaterThanOrEqual(n);
    expect(sent - n).toBeLessThan(n / 10);
  });

  it("imports a file journal once; every id claimed there is never claimed again", async () => {
    const stateDir = join(dir!, "state");
    const { journal } = Journal.open({ dir: stateDir, fsyncIntervalMs: 0 });
    journal.append(intent(1));
    journal.append({ t: "outcome", id: 1, at: 2, result: "accepted", fills: [], venueTs: 2 });
    journal.append(intent(2));
    journal.append({ t: "outcome", id: 2, at: 2, result: "not_accepted" });
    journal.append(intent(3)); // killed in flight
    journal.append(intent(4, { dryRun: true }));
    journal.append({ t: "outcome", id: 4, at: 2, result: "dry_run" });
    journal.append({ t: "positions", at: 3, venueTs: 3, held: { PERP_ETH_USDC: -0.125 } });
    await journal.close();
    const path = join(stateDir, "claims.jsonl");

    const s = await leader();
    // The database already saw id 2 as re-claimable; the file says it was really claimed.
    await s.journal.claimIntent(intent(2), 1);
    await s.journal.claimOutcome({ t: "outcome", id: 2, at: 1, result: "not_accepted" });
    const first = await s.importFileJournal(path);
    expect(first).toMatchObject({ imported: true, records: 8, ids: 4 });
    expect(await s.importFileJournal(path)).toMatchObject({ imported: false, digest: first.digest });
    expect(await s.importFileJournal(parseJournal(`${JSON.stringify(intent(1))}\n`))).toMatchObject({ imported: true, ids: 0 });

    for (const id of [1, 2, 3]) {
      await expect(s.journal.claimIntent(intent(id), 1)).rejects.toMatchObject({ code: "LIQ_DUPLICATE", state: "imported" });
    }
    expect(await s.journal.claimIntent(intent(4), 1)).toEqual({ attempt: 2 }); // only ever a dry run
    const replay = await s.replay();
    expect(replay.positions).toMatchObject({ venueTs: 3 });
    expect(replay.outcomes.get(1)).toEqual([{ t: "outcome", id: 1, at: 2, result: "accepted", fills: [], venueTs: 2 }]);
    expect(replay.intents.has(3)).toBe(true);

    writeFileSync(join(dir!, "empty.jsonl"), "");
    expect(await s.importFileJournal(join(dir!, "empty.jsonl"))).toMatchObject({ imported: false });
    expect(await s.importFileJournal(join(dir!, "missing.jsonl"))).toMatchObject({ imported: false });
  });
});
