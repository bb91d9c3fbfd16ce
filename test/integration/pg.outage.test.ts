/**
 * Database trouble against a real PostgreSQL: the server stopped (connections refused), then frozen
 * (SIGSTOP: connects and queries get no answer at all). In both, store calls fail with
 * DatabaseUnavailableError within the configured timeouts instead of hanging, the leader stops
 * leading within the lease time, and after the server is back the replica leads again under a new
 * term with everything written before still there.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { IntentRecord } from "../../src/core/journalRecords.js";
import { DuplicateClaimError } from "../../src/errors.js";
import { sleep } from "../../src/sleep.js";
import type { DeposeReason } from "../../src/store/postgres/leaseKeeper.js";
import { PgStore } from "../../src/store/postgres/pgStore.js";
import { DatabaseUnavailableError } from "../../src/store/storeErrors.js";
import { waitFor } from "../support/daemonHarness.js";
import { describeWithPostgres, type PgCluster, startPgCluster } from "../support/pgCluster.js";

const CONNECT_MS = 500;
const QUERY_MS = 500;
const LEASE_MS = 1_500;
const RENEW_MS = 300;
/** Scheduling slack on a shared, busy machine. */
const SLACK_MS = 400;

const intent = (id: number): IntentRecord => ({
  t: "intent",
  id,
  at: Date.now(),
  ratio: 1,
  limitPrice: { PERP_BTC_USDC: 60_000 },
  expectedFee: 2,
  perSymbolQty: { PERP_BTC_USDC: 0.01 },
});

describeWithPostgres("PostgreSQL store: database outage", () => {
  let cluster: PgCluster | undefined;
  const stores: PgStore[] = [];

  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(async () => {
    await Promise.allSettled(stores.map((s) => s.close()));
    await cluster?.destroy();
  });

  const leader = async (): Promise<{ store: PgStore; events: { at: number; kind: "elected" | DeposeReason; term: number }[] }> => {
    const events: { at: number; kind: "elected" | DeposeReason; term: number }[] = [];
    const store = await PgStore.open({
      url: cluster!.url,
      accountId: randomUUID(),
      connectTimeoutMs: CONNECT_MS,
      queryTimeoutMs: QUERY_MS,
      leaseMs: LEASE_MS,
      renewMs: RENEW_MS,
      safetyMarginMs: 200,
      leaseObserver: {
        elected: (term) => events.push({ at: performance.now(), kind: "elected", term }),
        deposed: (term, kind) => events.push({ at: performance.now(), kind, term }),
      },
      onIdleError: () => undefined,
    });
    stores.push(store);
    store.lease.start();
    await waitFor(() => store.lease.mayLead(), "the store to lead", 2_000, 5);
    for (let id = 1; id <= 5; id++) {
      const { attempt } = await store.journal.claimIntent(intent(id), 1);
      await store.journal.claimOutcome({ t: "outcome", id, at: Date.now(), result: "accepted", fills: [] }, { attempt });
    }
    return { store, events };
  };

  /** The call fails with DatabaseUnavailableError, and within `boundMs`. */
  const failsFast = async (call: () => Promise<unknown>, boundMs: number): Promise<void> => {
    const started = performance.now();
    await expect(call()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(performance.now() - started).toBeLessThan(boundMs + SLACK_MS);
  };

  const recovers = async (store: PgStore, events: { kind: string; term: number }[]): Promise<void> => {
    await waitFor(() => store.lease.mayLead(), "the store to lead", LEASE_MS + RENEW_MS + 2_000, 5);
    expect(events.map((e) => `${e.kind}:${e.term}`)).toEqual(["elected:1", "expired:1", "elected:2"]);
    expect(await store.journal.claimIntent(intent(6), 2)).toEqual({ attempt: 1 });
    for (let id = 1; id <= 5; id++) await expect(store.journal.claimIntent(intent(id), 2)).rejects.toBeInstanceOf(DuplicateClaimError);
    const replay = await store.replay();
    expect([...replay.intents.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...replay.outcomes.values()].flat().map((o) => o.result)).toEqual(Array(5).fill("accepted"));
  };

  it("server stopped: calls fail fast, the leader stops leading in time, and all is back after restart", async () => {
    const { store, events } = await leader();
    const down = performance.now();
    await cluster!.stop();
    await failsFast(() => store.journal.claimIntent(intent(6), 1), CONNECT_MS);
    await failsFast(() => store.journal.positionsSnapshot({ t: "positions", at: 1, venueTs: 1, held: {} }), CONNECT_MS);
    await failsFast(() => store.replay(), CONNECT_MS);
    await waitFor(() => events.some((e) => e.kind === "expired"), "the expired report", LEASE_MS + SLACK_MS, 5);
    expect(store.lease.mayLead()).toBe(false);
    const expired = events.find((e) => e.kind === "expired");
    expect(expired!.at - down).toBeLessThan(LEASE_MS);
    await sleep(3_000 - (performance.now() - down), AbortSignal.timeout(5_000)); // a 3 s outage: the scenario
    await cluster!.start();
    await recovers(store, events);
  });

  it("server frozen (no answer at all): calls time out instead of hanging, and all is back after it thaws", async () => {
    const { store, events } = await leader();
    const frozen = performance.now();
    cluster!.pause();
    try {
      // First on a pooled connection (query timeout), then on a new one (connect timeout).
      await failsFast(() => store.journal.claimIntent(intent(6), 1), QUERY_MS);
      await failsFast(() => store.journal.claimIntent(intent(6), 1), Math.max(QUERY_MS, CONNECT_MS));
      await waitFor(() => events.some((e) => e.kind === "expired"), "the expired report", LEASE_MS + SLACK_MS, 5);
      expect(store.lease.mayLead()).toBe(false);
      const expired = events.find((e) => e.kind === "expired");
      expect(expired!.at - frozen).toBeLessThan(LEASE_MS);
      await sleep(3_000 - (performance.now() - frozen), AbortSignal.timeout(5_000)); // frozen 3 s: the scenario
    } finally {
      cluster!.resume();
    }
    await recovers(store, events);
  });
});
