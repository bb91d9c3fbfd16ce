/**
 * PostgreSQL's journal compaction (migration 8) against a real server: events folded into the
 * account's snapshot are archived and left out of the start-up replay, which then reads only the
 * rows written since; what a restart makes of it (ids never claimed again, unknown ones, unsettled
 * orders, P&L, the claimed accounting) is what the whole history gives; a compaction killed at any
 * step rolls back whole; `history` still reads every row for `pnl`.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { IntentRecord } from "../../src/core/journalRecords.js";
import type { MarginMode } from "../../src/engine/types.js";
import type { JournalReplay } from "../../src/store/journalReplay.js";
import { PgStateStore } from "../../src/store/pgStateStore.js";
import { PgStore } from "../../src/store/postgres/pgStore.js";
import { leadershipUnsettled, ledgerOf, restoreIds } from "../support/journalRestore.js";
import { describeWithPostgres, type PgCluster, startPgCluster } from "../support/pgCluster.js";
import { waitFor } from "../support/wait.js";

const ETH = "PERP_ETH_USDC";
const POSITIONS: [string, MarginMode][] = [
  [ETH, "CROSS"],
  [ETH, "ISOLATED"],
];

const intent = (id: number, qty: number, extra: Partial<IntentRecord> = {}): IntentRecord => ({
  t: "intent",
  id,
  at: 1_790_000_000_000 + id * 10,
  ratio: 1,
  limitPrice: { [ETH]: 3000 },
  expectedFee: 1,
  perSymbolQty: { [ETH]: qty },
  ...extra,
});

/** What a restart makes of a replay: plain values to compare. */
function restartOf(replay: JournalReplay) {
  const holdings = replay.core?.holdings;
  const t = ledgerOf(replay).totals();
  return {
    ids: restoreIds(replay),
    orders: leadershipUnsettled(replay),
    net: Math.round(t.net * 1e9) / 1e9,
    fee: Math.round(t.liquidatorFee * 1e9) / 1e9,
    owed: POSITIONS.map(([s, m]) => holdings?.ours(s, m)),
    unplaced: holdings?.unplaced(ETH),
  };
}

describeWithPostgres("PostgreSQL store: journal compaction", () => {
  let cluster: PgCluster | undefined;
  const stores: PgStore[] = [];
  let admin: pg.Client | undefined;

  beforeAll(async () => {
    cluster = await startPgCluster();
    admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await Promise.allSettled(stores.map((s) => s.close()));
    await cluster?.destroy();
  });

  const leader = async (): Promise<PgStore> => {
    const store = await PgStore.open({ url: cluster!.url, accountId: randomUUID(), replicaId: "r1", leaseMs: 60_000, renewMs: 1_000 });
    stores.push(store);
    expect(await store.lease.tryAcquire()).toBe(1);
    return store;
  };

  /** Settled claims with partial unwinds, a claim re-claimed after a refusal, and the claims still open. */
  async function history(s: PgStore, from: number): Promise<void> {
    const j = s.journal;
    for (let id = from; id < from + 12; id++) {
      const rec = intent(id, 1);
      const { attempt } = await j.claimIntent(rec, 1);
      if (id % 5 === 0) {
        // Refused in a way that allows another try; claimed again and applied.
        await j.claimOutcome({ t: "outcome", id, at: rec.at + 1, result: "rejected", code: -1000 }, { attempt, reclaimable: true });
        await j.claimIntent(intent(id, 1, { at: rec.at + 2 }), 1);
      }
      const fills = [{ symbol: ETH, qty: 1, price: 3000, fee: 0.5 }];
      await j.claimOutcome({ t: "outcome", id, at: rec.at + 3, result: "accepted", fills });
      const mode = id % 3 === 0 ? "ISOLATED" : "CROSS";
      await j.event({ t: "claim_mode", id, symbol: ETH, marginMode: mode, at: rec.at + 4 });
      const cid = `o-${id}`;
      await j.orderIntent(
        {
          t: "order_intent",
          clientOrderId: cid,
          at: rec.at + 5,
          symbol: ETH,
          side: "SELL",
          orderType: "IOC",
          price: 2990,
          quantity: 1,
          reduceOnly: true,
          marginMode: mode,
          seq: id,
        },
        1,
      );
      await j.event({
        t: "order_fill",
        clientOrderId: cid,
        symbol: ETH,
        qty: -0.75,
        price: 3001,
        fee: 0.1,
        tradeId: `t${id}`,
        at: rec.at + 6,
      });
      await j.orderOutcome({ t: "order_outcome", clientOrderId: cid, at: rec.at + 7, result: "cancelled", filledQty: -0.75 });
    }
    // Still open: an intent with no outcome, an unknown outcome, an order of unknown outcome.
    await j.claimIntent(intent(from + 20, 1, { open: [{ symbol: ETH, positionQty: 1, liquidatorFee: 0.01 }] }), 1);
    await j.claimIntent(intent(from + 21, 1), 1);
    await j.claimOutcome({ t: "outcome", id: from + 21, at: 1, result: "unknown" });
    await j.orderIntent(
      {
        t: "order_intent",
        clientOrderId: `o-${from + 22}`,
        at: 1,
        symbol: ETH,
        side: "SELL",
        orderType: "IOC",
        price: 1,
        quantity: 1,
        reduceOnly: true,
        seq: from + 22,
      },
      1,
    );
    await j.orderOutcome({ t: "order_outcome", clientOrderId: `o-${from + 22}`, at: 2, result: "unknown" });
  }

  const openRows = async (accountId: string) =>
    Number((await admin!.query("SELECT count(*) AS n FROM journal_events WHERE account_id = $1 AND NOT archived", [accountId])).rows[0].n);

  it("a restart after compaction reads only the rows since, and makes of them what the whole history gives", async () => {
    const s = await leader();
    await history(s, 100);
    const full = restartOf(await s.replay({ history: true }));
    expect(restartOf(await s.replay())).toEqual(full);
    // Both open claims are settled from the venue's record after a restart (neither is blocked for good).
    expect(full.ids.unknown).toEqual([120, 121]);
    expect(full.owed[0]).toBeGreaterThan(0);
    expect(full.owed[1]).toBeGreaterThan(0);

    const written0 = await openRows(s.accountId);
    expect(written0).toBeGreaterThan(80);
    const { archived } = await s.compact();
    expect(archived).toBe(written0);
    expect(await openRows(s.accountId)).toBe(0);
    const compacted = await s.replay();
    expect(compacted.records).toBe(0);
    expect(restartOf(compacted)).toEqual(full);

    // More history, another compaction: still the same as reading it all.
    await history(s, 200);
    const written = await openRows(s.accountId);
    const before = await s.replay();
    expect(before.records).toBe(written);
    const full2 = restartOf(await s.replay({ history: true }));
    expect(restartOf(before)).toEqual(full2);
    expect((await s.compact()).archived).toBe(written);
    expect(restartOf(await s.replay())).toEqual(full2);
    expect(full2.ids.blocked).toEqual(expect.arrayContaining([100, 105, 120, 121, 200, 210, 220, 221]));
    // Nothing to fold: a no-op.
    expect((await s.compact()).archived).toBe(0);
  });

  for (const kill of ["folded", "written", "archived"] as const) {
    it(`a compaction killed at "${kill}" rolls back whole: no row archived, the old snapshot, the same restart`, async () => {
      const s = await leader();
      await history(s, 100);
      await s.compact();
      await history(s, 200);
      const expected = restartOf(await s.replay({ history: true }));
      const open = await openRows(s.accountId);
      await expect(
        s.compact({
          step: (step) => {
            if (step === kill) throw new Error("killed");
          },
        }),
      ).rejects.toThrow("killed");
      expect(await openRows(s.accountId)).toBe(open);
      expect(restartOf(await s.replay())).toEqual(expected);
      await s.compact();
      expect(restartOf(await s.replay())).toEqual(expected);
    });
  }

  it("rows written while a compaction runs are never lost between the snapshot and the replay", async () => {
    const s = await leader();
    await history(s, 100);
    const racing = (async () => {
      for (let id = 500; id < 520; id++) {
        await s.journal.claimIntent(intent(id, 1), 1);
        await s.journal.claimOutcome({
          t: "outcome",
          id,
          at: 1,
          result: "accepted",
          fills: [{ symbol: ETH, qty: 1, price: 3000, fee: 0.5 }],
        });
      }
    })();
    await Promise.all([racing, s.compact(), s.compact()]);
    await s.compact();
    expect(restartOf(await s.replay())).toEqual(restartOf(await s.replay({ history: true })));
  });

  it("the leader of a PgStateStore compacts by itself, every compactEveryMs; a standby does not", async () => {
    const accountId = randomUUID();
    const outcomes: unknown[] = [];
    const events = { elected: () => undefined, deposed: () => undefined, error: () => undefined };
    const open = (replicaId: string, compacted?: (o: unknown) => void) =>
      PgStateStore.open(
        { url: cluster!.url, accountId, replicaId, leaseMs: 60_000, renewMs: 1_000, compactEveryMs: 100 },
        { ...events, ...(compacted !== undefined ? { compacted } : {}) },
      );
    const standby = await open("r2", () => outcomes.push("standby"));
    const store = await open("r1", (o) => outcomes.push(o));
    try {
      store.start();
      await waitFor(() => store.role() === "leader", "r1 leads");
      standby.start();
      store.append({ t: "claim_mode", id: 1, symbol: ETH, marginMode: "CROSS", at: 1 });
      await waitFor(
        async () => (await openRows(accountId)) === 0 && outcomes.some((o) => (o as { archived?: number }).archived === 1),
        "compacted",
      );
      expect(outcomes).not.toContain("standby");
    } finally {
      await store.close();
      await standby.close();
    }
  });
});
