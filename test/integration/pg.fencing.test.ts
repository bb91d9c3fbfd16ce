/**
 * The fence against a real PostgreSQL: an intent under a term that no longer holds the lease is
 * refused; an intent and a takeover are serialised on the lease row lock in both directions (each
 * one shown by holding the other open); and, hammered over many takeovers, no intent of the old
 * term commits after the takeover commits (commit timestamps, track_commit_timestamp = on).
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { IntentRecord } from "../../src/core/journalRecords.js";
import { FencedError } from "../../src/errors.js";
import { sleep } from "../../src/sleep.js";
import { RECLAIMABLE_STATES } from "../../src/store/postgres/intentStates.js";
import { PgStore, type PgStoreOptions } from "../../src/store/postgres/pgStore.js";
import { describeWithPostgres, type PgCluster, startPgCluster } from "../support/pgCluster.js";
import { waitFor } from "../support/wait.js";

const intent = (id: number): IntentRecord => ({
  t: "intent",
  id,
  at: Date.now(),
  ratio: 1,
  limitPrice: { PERP_ETH_USDC: 3000 },
  expectedFee: 1,
  perSymbolQty: { PERP_ETH_USDC: 0.1 },
});

/** Settles to "pending" if `p` has not settled within `ms`. */
async function stateAfter(p: Promise<unknown>, ms: number): Promise<"pending" | "resolved" | "rejected"> {
  const timer = sleep(ms, AbortSignal.timeout(ms + 1_000)).then(() => "pending" as const);
  return Promise.race([
    p.then(
      () => "resolved" as const,
      () => "rejected" as const,
    ),
    timer,
  ]);
}

describeWithPostgres("PostgreSQL store: fencing", () => {
  let cluster: PgCluster | undefined;
  const stores: PgStore[] = [];
  let admin: pg.Client | undefined;

  beforeAll(async () => {
    cluster = await startPgCluster({ settings: { track_commit_timestamp: "on" } });
    admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.allSettled(stores.map((s) => s.close()));
    await admin?.end();
    await cluster?.destroy();
  });

  const open = async (accountId: string, replicaId: string, o: Partial<PgStoreOptions> = {}): Promise<PgStore> => {
    // renewMs also bounds the lease connection's connect timeout: 800 ms, not 200, so a CI machine
    // busy with the image build still connects (these tests take and check leases by hand).
    const store = await PgStore.open({ url: cluster!.url, accountId, replicaId, leaseMs: 1_000, renewMs: 800, safetyMarginMs: 150, ...o });
    stores.push(store);
    return store;
  };

  it("refuses an intent with no lease, another holder's term, or an expired lease", async () => {
    const account = randomUUID();
    const a = await open(account, "a");
    const b = await open(account, "b");
    await expect(a.journal.claimIntent(intent(1), 1)).rejects.toMatchObject({ code: "LIQ_FENCED", message: /no lease/ });
    expect(await a.lease.tryAcquire()).toBe(1);
    // b names a's term, but b is not the holder.
    await expect(b.journal.claimIntent(intent(1), 1)).rejects.toBeInstanceOf(FencedError);
    await expect(a.journal.claimIntent(intent(1), 2)).rejects.toBeInstanceOf(FencedError);
    expect(await a.journal.claimIntent(intent(1), 1)).toEqual({ attempt: 1 });
    await sleep(1_050, AbortSignal.timeout(2_000)); // expired by the database clock, nobody took over
    await expect(a.journal.claimIntent(intent(2), 1)).rejects.toMatchObject({ code: "LIQ_FENCED", message: /expired/ });
  });

  it("a deposed leader's intents are refused after a takeover; the new leader's are accepted", async () => {
    const account = randomUUID();
    const a = await open(account, "a");
    const b = await open(account, "b");
    expect(await a.lease.tryAcquire()).toBe(1);
    expect(await a.journal.claimIntent(intent(10), 1)).toEqual({ attempt: 1 });
    await sleep(1_050, AbortSignal.timeout(2_000)); // the lease expires by the database clock: time is the subject
    expect(await b.lease.tryAcquire()).toBe(2);
    await expect(a.journal.claimIntent(intent(11), 1)).rejects.toMatchObject({ code: "LIQ_FENCED", term: 1 });
    await expect(a.journal.orderIntent(orderIntent("u-11-1"), 1)).rejects.toBeInstanceOf(FencedError);
    expect(await b.journal.claimIntent(intent(11), 2)).toEqual({ attempt: 1 });
    expect((await b.replay()).intents.has(11)).toBe(true);
  });

  it("an intent waits for a takeover in progress, then sees the new term and is refused", async () => {
    const account = randomUUID();
    const a = await open(account, "a");
    expect(await a.lease.tryAcquire()).toBe(1);
    await admin!.query("BEGIN");
    await admin!.query("UPDATE lease SET term = term + 1, holder = 'b', expires_at = now() + interval '10 seconds' WHERE account_id = $1", [
      account,
    ]);
    const pending = a.journal.claimIntent(intent(20), 1);
    // A plain read would see the committed term 1 and succeed at once; the share lock waits.
    expect(await stateAfter(pending, 300)).toBe("pending");
    await admin!.query("COMMIT");
    await expect(pending).rejects.toBeInstanceOf(FencedError);
    expect(await a.journal.claimState(20)).toBeUndefined();
  });

  it("a takeover waits for an intent in flight, which commits under the old term first", async () => {
    const account = randomUUID();
    const a = await open(account, "a", { leaseMs: 1_500, renewMs: 1_000, safetyMarginMs: 200 });
    const b = await open(account, "b", { leaseMs: 1_500, renewMs: 1_000, safetyMarginMs: 200 });
    expect(await a.lease.tryAcquire()).toBe(1);
    // The journal's own intent function, held open in a transaction to widen the in-flight window.
    await admin!.query("BEGIN");
    await admin!.query("SELECT liquidator_claim_intent($1, 30, 1, 'a', $2::jsonb, $3::text[])", [
      account,
      JSON.stringify(intent(30)),
      RECLAIMABLE_STATES,
    ]);
    await sleep(1_550, AbortSignal.timeout(3_000)); // a's lease has expired: b may take over...
    const takeover = b.lease.tryAcquire();
    expect(await stateAfter(takeover, 300)).toBe("pending"); // ...once the intent is done
    await admin!.query("COMMIT");
    expect(await takeover).toBe(2);
    expect(await b.journal.claimState(30)).toMatchObject({ state: "intent", term: 1 });
  });

  it("hammered: no intent of the old term commits after the takeover commits", async () => {
    let oldTermCommits = 0;
    let refusals = 0;
    for (let round = 0; round < 12; round++) {
      const account = randomUUID();
      const a = await open(account, "a", { leaseMs: 5_000, maxConnections: 6 });
      expect(await a.lease.tryAcquire()).toBe(1);
      let next = 1;
      let committed = 0;
      const worker = async (): Promise<void> => {
        for (;;) {
          try {
            await a.journal.claimIntent(intent(next++), 1);
            committed++;
          } catch (err) {
            if (!(err instanceof FencedError)) throw err;
            refusals++;
            return;
          }
        }
      };
      const workers = Array.from({ length: 6 }, worker);
      // Some intents of the old term committed first (however slow the machine), so the check below is not vacuous.
      await waitFor(() => committed >= 10 + round, "old-term intents committed", 10_000, 2);
      // The takeover's own UPDATE, on a lease that has not expired: every worker is mid-stream, so
      // intents are in flight at the instant it commits (expiry would have stopped them before).
      await admin!.query(
        "UPDATE lease SET term = term + 1, holder = 'b', expires_at = now() + interval '5 seconds' WHERE account_id = $1",
        [account],
      );
      await Promise.all(workers);
      const res = await admin!.query<{ late: number; total: number }>(
        `SELECT count(*) FILTER (WHERE pg_xact_commit_timestamp(c.xmin) > pg_xact_commit_timestamp(l.xmin))::int AS late,
                count(*)::int AS total
         FROM claims c JOIN lease l USING (account_id) WHERE c.account_id = $1 AND c.term = 1`,
        [account],
      );
      expect(res.rows[0]!.late).toBe(0);
      oldTermCommits += res.rows[0]!.total;
      await a.close();
    }
    expect(oldTermCommits).toBeGreaterThan(100);
    expect(refusals).toBe(12 * 6);
  });
});

function orderIntent(clientOrderId: string) {
  return {
    t: "order_intent" as const,
    clientOrderId,
    at: Date.now(),
    symbol: "PERP_ETH_USDC",
    side: "SELL" as const,
    orderType: "IOC" as const,
    price: 2990,
    quantity: 0.1,
    reduceOnly: true,
  };
}
