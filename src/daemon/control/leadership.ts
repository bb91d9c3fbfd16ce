/**
 * What this replica does as the lease comes and goes (state.backend: postgres). A standby keeps its
 * streams, books, marks and positions warm and decides as the leader does, but claiming is paused
 * ("standby") and the unwinder sends nothing. Elected, it first replays the shared journal (what the
 * previous leader claimed and ordered: those ids are never claimed again, its unsettled orders are
 * looked up), then claims. Deposed — superseded, or its lease run out because the database or the
 * process stalled — it stops at once; intents already written under its term stay fenced.
 */
import type { CoreFold } from "../../core/coreFold.js";
import type { OrderFillRecord, OrderIntentRecord } from "../../core/journalRecords.js";
import type { TradingCore } from "../../core/tradingCore.js";
import type { JournalReplay } from "../../store/journalReplay.js";
import type { Claimer } from "../claim/claimer.js";
import type { MarkoutSampler } from "../records/markoutSampler.js";
import type { Unwinder } from "../unwind/unwinder.js";
import type { ProtectionGuard } from "./protectionGuard.js";

export interface LeadershipOptions {
  replay: () => Promise<JournalReplay>;
  claimer: Pick<Claimer, "setPaused">;
  core: Pick<TradingCore, "adopt">;
  unwinder: Pick<Unwinder, "takeOver">;
  /** Samples the markouts of claims: continued from the journal when leading, stopped when deposed. */
  markouts?: Pick<MarkoutSampler, "resume" | "stop">;
  /** The protections carry on from the journal's last record (protectionGuard.ts). */
  protections?: Pick<ProtectionGuard, "adopt" | "claimClosed">;
  onRole: (leader: boolean) => void;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** How long to wait before replaying again when the replay failed. */
  retryMs?: number;
}

/** Orders the journal left open (looked up first), with their trades so far, and the next order number. */
function openOrders(fold: CoreFold): { unsettled: OrderIntentRecord[]; firstSeq: number; fills: Map<string, OrderFillRecord[]> } {
  const unsettled: OrderIntentRecord[] = [];
  const fills = new Map<string, OrderFillRecord[]>();
  for (const [cid, o] of fold.orders) {
    unsettled.push(o.intent);
    fills.set(cid, [...o.fills]);
  }
  return { unsettled, firstSeq: fold.orderSeq + 1, fills };
}

/** Everything a journal tells a replica that starts sending: the core's state, orders to settle, protections, markouts. */
export function adoptJournal(
  fold: CoreFold,
  o: Pick<LeadershipOptions, "core" | "unwinder" | "markouts" | "protections">,
): { ids: number; unsettled: number; unknown: number } {
  // Before the unwinder looks at any position: what it may close of each comes from the core.
  o.core.adopt(fold, o.protections === undefined ? undefined : (c) => o.protections?.claimClosed(c));
  o.protections?.adopt(fold.protection);
  const { unsettled, firstSeq, fills } = openOrders(fold);
  o.unwinder.takeOver(unsettled, firstSeq, fills);
  o.markouts?.resume([...fold.recent.values()]);
  let ids = fold.done.size;
  for (const id of fold.claims.keys()) if (!fold.done.has(id)) ids++;
  return { ids, unsettled: unsettled.length, unknown: fold.claims.size };
}

export class Leadership {
  readonly #o: LeadershipOptions;
  #term: number | undefined;

  constructor(options: LeadershipOptions) {
    this.#o = options;
    options.claimer.setPaused("standby", true);
    options.onRole(false);
  }

  elected(term: number): void {
    this.#term = term;
    void this.#takeOver(term);
  }

  deposed(term: number, reason: string): void {
    if (this.#term === term) this.#term = undefined;
    this.#o.claimer.setPaused("standby", true);
    // The next leader samples from the journal; two replicas writing the same horizons helps nobody.
    this.#o.markouts?.stop();
    this.#o.onRole(false);
    this.#o.logger.warn({ term, reason }, "leadership lost: standing by (nothing is sent)");
  }

  async #takeOver(term: number): Promise<void> {
    const o = this.#o;
    while (this.#term === term) {
      try {
        const replay = await o.replay();
        if (this.#term !== term) return;
        if (replay.core === undefined) throw new Error("the store's replay holds no core state");
        const adopted = adoptJournal(replay.core, o);
        o.onRole(true);
        o.claimer.setPaused("standby", false);
        o.logger.info({ term, ...adopted }, "leader: journal replayed, claiming");
        return;
      } catch (err) {
        o.logger.warn({ term, err: (err as Error).message }, "leader: journal replay failed; retrying before claiming");
        await new Promise((r) => setTimeout(r, o.retryMs ?? 500).unref());
      }
    }
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { openOrders as openOrdersForTests };
