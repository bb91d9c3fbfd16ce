/**
 * Who owns the journal. On the file journal one process does: it adopts the replay at once. Replicas
 * (PostgreSQL) send nothing until the lease is held and the shared journal replayed (Leadership).
 */
import type { Logger } from "pino";
import { CoreFold } from "../core/coreFold.js";
import type { TradingCore } from "../core/tradingCore.js";
import type { Claimer } from "../daemon/claim/claimer.js";
import { adoptJournal, Leadership } from "../daemon/control/leadership.js";
import type { ProtectionGuard } from "../daemon/control/protectionGuard.js";
import type { MarkoutSampler } from "../daemon/records/markoutSampler.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { JournalReplay } from "../store/journalReplay.js";
import type { StateStore } from "../store/stateStore.js";

/** The lease's part (PostgreSQL), or undefined for a single daemon on the file journal. */
export function journalOwner(o: {
  store: StateStore;
  replay: JournalReplay;
  metrics: Metrics;
  logger: Logger;
  claimer: Claimer;
  core: TradingCore;
  unwinder: Unwinder;
  markouts: MarkoutSampler;
  guard: ProtectionGuard;
}): Leadership | undefined {
  const { store, metrics, logger, claimer, core, unwinder, markouts, guard } = o;
  if (store.kind === "file") {
    // One process owns the journal: what it says holds from the start.
    const adopted = adoptJournal(o.replay.core ?? new CoreFold(), { core, unwinder, markouts, protections: guard });
    if (adopted.ids > 0 || adopted.unknown > 0) logger.info(adopted, "journal replayed: these ids are never claimed again");
    metrics.leader.set(1);
  }
  return store.kind === "postgres"
    ? new Leadership({
        replay: () => store.replay(),
        claimer,
        core,
        unwinder,
        markouts,
        protections: guard,
        onRole: (leader) => metrics.leader.set(leader ? 1 : 0),
        logger: logger.child({ component: "leadership" }),
      })
    : undefined;
}
