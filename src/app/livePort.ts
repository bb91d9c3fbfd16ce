/**
 * The trading core's port in the live daemon: the state store for the journal, the claim sender
 * (the single point a claim leaves, dry run decided there), the REST client for orders and the
 * venue's record of our claims, real timers.
 */
import type { CorePort, RecordRead } from "../core/corePort.js";
import type { ClaimSender } from "../daemon/claim/claimSender.js";
import type { StateStore } from "../store/stateStore.js";
import { VenueError } from "../venue/errors.js";
import { readLiquidatorRecord } from "../venue/liquidatorRecord.js";
import type { OrderApi } from "../venue/orderApi.js";
import type { RestClient } from "../venue/rest.js";

/** Pages of the record read at most per look (500 rows each: a cascade's claims of a few minutes). */
const MAX_RECORD_PAGES = 10;

export function livePort(o: {
  store: Pick<StateStore, "intent" | "append" | "mayLead" | "recover">;
  sender: ClaimSender;
  rest: RestClient;
  orders: Pick<OrderApi, "placeOrder">;
  requestPositions(): void;
  /** -1101: each symbol's leverage read again, then the positions (restFeed.ts `requestLeverages`). */
  rereadAccount(): void;
  signal: AbortSignal;
}): CorePort {
  const { store, sender, rest } = o;
  return {
    intent: (record) => store.intent(record),
    append: (record) => store.append(record),
    recover: () => store.recover(),
    mayLead: () => store.mayLead(),
    sendClaim: (body, dryRun, answered) => {
      sender.send(body, dryRun).then(answered, (error: unknown) => answered({ error }));
    },
    sendFundClaim: (body, dryRun, answered) => {
      sender.sendFund(body, dryRun, o.signal).then(answered, (error: unknown) => answered({ error }));
    },
    placeOrder: (body) => o.orders.placeOrder(body),
    readRecord: (startT, endT) => readRecord(rest, startT, endT, o.signal),
    requestPositions: () => o.requestPositions(),
    rereadAccount: () => o.rereadAccount(),
    schedule: (ms, f) => {
      const timer = setTimeout(f, ms);
      timer.unref();
      return () => clearTimeout(timer);
    },
    now: Date.now,
    monotonic: () => performance.now(),
  };
}

/** The record's pages; unreadable rows are counted and logged by the REST core (restCore.ts `onSkippedRows`). */
async function readRecord(rest: RestClient, startT: number, endT: number, signal: AbortSignal): Promise<RecordRead> {
  const asOf = Date.now();
  try {
    const claims = [];
    let unreadRows = 0;
    for (let page = 1; page <= MAX_RECORD_PAGES; page++) {
      const p = await readLiquidatorRecord(rest, { startT, endT, page }, { signal });
      claims.push(...p.claims);
      unreadRows += p.skipped;
      if (!p.more) break;
    }
    return { ok: true, claims, asOf, unreadRows };
  } catch (err) {
    // A venue without the route (404) will not grow one: settled by the open list and the bound.
    const permanent = err instanceof VenueError && (err.status === 404 || err.status === 405);
    return { ok: false, reason: (err as Error).message, permanent };
  }
}
