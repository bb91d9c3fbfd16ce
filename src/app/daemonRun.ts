/**
 * The assembled daemon's run: the key check first, then the pollers (rewards, heatmap), the protections and the
 * daemon until the signal (or a finished drain) aborts; then the drain, the unwinder and the
 * pollers stop, and what the run opened is flushed and closed (not the journal or the venue), the
 * shadow variants' thread with it.
 */
import { setMaxListeners } from "node:events";
import type { Drain, DrainResult } from "../daemon/control/drain.js";
import type { KeyWatch } from "../daemon/control/keyWatch.js";
import type { ProtectionGuard } from "../daemon/control/protectionGuard.js";
import type { Daemon } from "../daemon/daemon.js";
import type { RewardsPoller } from "../daemon/feeds/rewardsPoller.js";
import type { MarkoutSampler } from "../daemon/records/markoutSampler.js";
import type { OpportunityLedger } from "../daemon/records/opportunityLedger.js";
import { type LeftPosition, logLeftAtShutdown } from "../daemon/unwind/positionsLeft.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import { sleep } from "../sleep.js";
import type { StateStore } from "../store/stateStore.js";
import type { VenueLimiters } from "../venue/limiters.js";
import type { RestClient } from "../venue/rest.js";

export function daemonRun(o: {
  daemon: Daemon;
  keyWatch: KeyWatch;
  poller: RewardsPoller;
  /** The heatmap's poller (forecastParts.ts). */
  forecast: { run(signal: AbortSignal): Promise<void> };
  /** The insurance fund's watch (fundParts.ts). */
  fund: { run(signal: AbortSignal): Promise<void> };
  guard: ProtectionGuard;
  /** Where `liquidator rearm` leaves its requests (`operatorRequestLoop` below). */
  store: Pick<StateStore, "requests" | "requestDone" | "mayLead">;
  drain: Drain;
  drained: AbortSignal;
  drainResult(): DrainResult | undefined;
  /** What stays open of the claimed positions (logged when the run ends without a safe stop). */
  left(): LeftPosition[];
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  unwinder: Unwinder;
  opportunities: OpportunityLedger;
  markouts: MarkoutSampler;
  rest: RestClient;
  limiters: VenueLimiters;
  shadows: { close(): Promise<void> };
}): (signal: AbortSignal) => Promise<void> {
  return async (outer) => {
    const signal = AbortSignal.any([outer, o.drained]);
    // Every loop of the run (streams, REST reads, pollers, the heatmap, the operator's requests) and
    // its requests in flight wait on this one signal: more than Node's default 10 listeners is the
    // design, not a leak.
    setMaxListeners(32, signal);
    try {
      // Before anything is claimed: a key that cannot claim or unwind stops the start (exit 78).
      await o.keyWatch.check(signal);
      const polling = o.poller.start(signal);
      const forecasting = o.forecast.run(signal);
      const fundWatching = o.fund.run(signal);
      const keys = o.keyWatch.run(signal);
      const stopGuard = o.guard.start();
      const requests = operatorRequestLoop({ store: o.store, guard: o.guard, logger: o.logger, signal });
      await o.daemon.run(signal).finally(stopGuard);
      o.drain.stop();
      // A safe stop said what it left; any other stop says it here, before the unwinder stops.
      if (o.drainResult() === undefined) logLeftAtShutdown(o.left(), o.logger);
      await o.unwinder.stop();
      await polling;
      await forecasting;
      await fundWatching;
      await keys;
      await requests;
    } finally {
      o.opportunities.flush();
      o.markouts.stop();
      await o.rest.close().catch(() => undefined);
      await o.limiters.stop().catch(() => undefined);
      await o.shadows.close();
    }
  };
}

/**
 * The running daemon's side of `liquidator rearm`: every second the replica that may send reads the
 * operator's open requests from the store (store/operatorRequests.ts), acts on each — `rearm` clears
 * a `halted` or `reducing` state and restarts the loss baselines with the running limits — then
 * marks it done. A done that fails is tried again on the next turn without acting twice in this
 * process; a store that cannot be read now is tried again too (logged once per failure run).
 */
async function operatorRequestLoop(o: {
  store: Pick<StateStore, "requests" | "requestDone" | "mayLead">;
  guard: Pick<ProtectionGuard, "rearm">;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  signal: AbortSignal;
  everyMs?: number;
}): Promise<void> {
  let failing = false;
  /** Requests acted on whose done has not been recorded yet. */
  const acted = new Set<string>();
  while (!o.signal.aborted) {
    await sleep(o.everyMs ?? 1_000, o.signal);
    if (o.signal.aborted || !o.store.mayLead()) continue;
    try {
      for (const r of await o.store.requests()) {
        if (!acted.has(r.id)) {
          o.logger.info({ kind: r.kind, requestedAt: new Date(r.at).toISOString(), by: r.by }, "operator request taken");
          if (r.kind === "rearm") o.guard.rearm(undefined, "command");
          acted.add(r.id);
        }
        await o.store.requestDone(r.id);
        acted.delete(r.id);
      }
      failing = false;
    } catch (err) {
      if (!failing) o.logger.warn({ err: (err as Error).message }, "operator requests not read or not marked done; trying again");
      failing = true;
    }
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { operatorRequestLoop as operatorRequestLoopForTests };
