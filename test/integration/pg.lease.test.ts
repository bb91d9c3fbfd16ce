/**
 * Leadership through the lease row against a real PostgreSQL: one leader among replicas, renewal
 * keeping it, a silent leader losing it locally before the database lets a standby take over with
 * term + 1 (inside ha.failover_ms with the default timings), a deposed holder's renewal refused by
 * the database, a stop handing over at the standby's next beat.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sleep } from "../../src/sleep.js";
import { type DeposeReason, LeaseKeeper, type LeaseKeeperOptions } from "../../src/store/postgres/leaseKeeper.js";
import { migrate } from "../../src/store/postgres/migrate.js";
import { PgDatabase } from "../../src/store/postgres/pgDatabase.js";
import { waitFor } from "../support/daemonHarness.js";
import { describeWithPostgres, type PgCluster, startPgCluster } from "../support/pgCluster.js";

interface Replica {
  keeper: LeaseKeeper;
  events: { at: number; kind: "elected" | DeposeReason; term: number }[];
}

describeWithPostgres("PostgreSQL store: lease", () => {
  let cluster: PgCluster | undefined;
  const dbs: PgDatabase[] = [];
  const keepers: LeaseKeeper[] = [];

  beforeAll(async () => {
    cluster = await startPgCluster();
    const db = new PgDatabase({ url: cluster.url });
    dbs.push(db);
    await migrate(db);
  });
  afterAll(async () => {
    await Promise.allSettled(keepers.map((k) => k.stop()));
    await Promise.allSettled(dbs.map((db) => db.close()));
    await cluster?.destroy();
  });

  /** A replica with its own pool, as separate processes would have. */
  const replica = (accountId: string, name: string, o: Partial<LeaseKeeperOptions> = {}): Replica => {
    // The lease's rules are under test, not the query timeout: a loaded CI machine can take longer
    // than the daemon's 2 s to answer one statement (pg.outage.test.ts tests timeouts).
    const db = new PgDatabase({ url: cluster!.url, maxConnections: 2, queryTimeoutMs: 15_000 });
    dbs.push(db);
    const events: Replica["events"] = [];
    const keeper = new LeaseKeeper({
      db,
      accountId,
      replicaId: name,
      leaseMs: 1_000,
      renewMs: 200,
      safetyMarginMs: 150,
      observer: {
        elected: (term) => events.push({ at: performance.now(), kind: "elected", term }),
        deposed: (term, reason) => events.push({ at: performance.now(), kind: reason, term }),
      },
      ...o,
    });
    keepers.push(keeper);
    return { keeper, events };
  };

  it("elects one leader of two, and renewal keeps it for many lease periods", async () => {
    const account = randomUUID();
    const a = replica(account, "a");
    const b = replica(account, "b");
    a.keeper.start();
    b.keeper.start();
    await waitFor(() => a.keeper.mayLead() || b.keeper.mayLead(), "a leader", 2_000, 5);
    const leader = a.keeper.mayLead() ? a : b;
    const standby = leader === a ? b : a;
    const end = performance.now() + 2_500;
    while (performance.now() < end) {
      expect([a.keeper.mayLead(), b.keeper.mayLead()].filter(Boolean)).toHaveLength(1);
      expect(leader.keeper.mayLead()).toBe(true);
      await sleep(20, AbortSignal.timeout(1_000)); // samples the invariant over 2.5 s of beats
    }
    expect(leader.events).toEqual([{ at: expect.any(Number), kind: "elected", term: 1 }]);
    expect(standby.events).toEqual([]);
    expect(await standby.keeper.current()).toMatchObject({ term: 1, holder: leader.keeper.replicaId });
  });

  it("with the default timings, a silent leader stops leading before the standby takes over with term + 1, inside 5 s", async () => {
    const account = randomUUID();
    const defaults = { leaseMs: undefined, renewMs: undefined, safetyMarginMs: undefined };
    const a = replica(account, "a", defaults);
    const b = replica(account, "b", defaults);
    const acquiredAt = performance.now();
    expect(await a.keeper.tryAcquire()).toBe(1);
    b.keeper.start(); // a never renews after taking the lease: the worst moment for a leader to die
    await waitFor(() => b.keeper.mayLead(), "b to lead", 6_000, 5);
    const deposed = a.events.find((e) => e.kind === "expired");
    const elected = b.events.find((e) => e.kind === "elected");
    expect(elected?.term).toBe(2);
    // a gave up on its own clock before leaseMs had passed, and before b was elected.
    expect(deposed!.at - acquiredAt).toBeLessThan(3_000);
    expect(deposed!.at).toBeLessThan(elected!.at);
    // b could not take over before the row expired by the database clock; it did within one beat
    // after, inside ha.failover_ms.
    const failoverMs = elected!.at - acquiredAt;
    expect(failoverMs).toBeGreaterThanOrEqual(3_000);
    expect(failoverMs).toBeLessThan(5_000);
    process.stderr.write(
      `NOTE: lease takeover (leaseMs 3000, renewMs 1000): leader stops at ${Math.round(deposed!.at - acquiredAt)} ms, standby leads at ${Math.round(failoverMs)} ms\n`,
    );
  });

  it("the database refuses the renewal of a holder that was taken over (a paused process)", async () => {
    const account = randomUUID();
    // a's clock stands still, as a process frozen mid-term sees it: it still believes it leads.
    let frozen = performance.now();
    const a = replica(account, "a", { monotonic: () => frozen });
    const b = replica(account, "b");
    expect(await a.keeper.tryAcquire()).toBe(1);
    b.keeper.start();
    await waitFor(() => b.keeper.mayLead(), "b to lead", 3_000, 5);
    expect(a.keeper.mayLead()).toBe(true);
    expect(await a.keeper.renew()).toBe(false);
    expect(a.keeper.mayLead()).toBe(false);
    expect(a.events.at(-1)).toMatchObject({ kind: "superseded", term: 1 });
    expect(await b.keeper.current()).toMatchObject({ term: 2, holder: "b" });
    frozen += 10_000;
    expect(await a.keeper.tryAcquire()).toBeUndefined();
  });

  it("stopping gives the lease up: the standby takes over at its next beat", async () => {
    const account = randomUUID();
    const a = replica(account, "a", { leaseMs: 10_000 });
    const b = replica(account, "b", { leaseMs: 10_000 });
    expect(await a.keeper.tryAcquire()).toBe(1);
    b.keeper.start();
    await sleep(300, AbortSignal.timeout(1_000)); // b beats against a's held lease for a while: time is the scenario
    expect(b.keeper.mayLead()).toBe(false);
    const stoppedAt = performance.now();
    await a.keeper.stop();
    expect(a.keeper.mayLead()).toBe(false);
    expect(a.events.at(-1)).toMatchObject({ kind: "released", term: 1 });
    await waitFor(() => b.keeper.mayLead(), "b to lead", 1_000, 5);
    expect(performance.now() - stoppedAt).toBeLessThan(200 + 300);
    expect(b.keeper.term).toBe(2);
    // Stopped without releasing (as a crash would leave it): no longer leading, the row left to expire.
    await b.keeper.stop({ release: false });
    expect(b.keeper.mayLead()).toBe(false);
    expect(b.events.at(-1)).toMatchObject({ kind: "stopped", term: 2 });
    expect((await b.keeper.current())?.expiresInMs).toBeGreaterThan(5_000);
  });
});
