/**
 * What this replica does as the lease comes and goes (state.backend: postgres). A standby keeps its
 * streams, books, marks and positions warm and decides as the leader does, but claiming is paused
 * ("standby") and the unwinder sends nothing. Elected, it first replays the shared journal (what the
 * previous leader claimed and ordered: those ids are never claimed again, its unsettled orders are
 * looked up), then claims. Deposed — superseded, or its lease run out because the database or the
 * process stalled — it stops at once; intents already written under its term stay fenced.
 */
import type { PnlLedger } from "../engine/pnlLedger.js";
import type { JournalReplay, OrderFillRecord, OrderIntentRecord } from "../store/journalRecords.js";
import type { ClaimedPositions } from "./claimedPositions.js";
import type { Claimer } from "./claimer.js";
import type { MarkoutSampler } from "./markoutSampler.js";
import { ledgerFromJournal } from "./pnlFromJournal.js";
import type { ProtectionGuard } from "./protectionGuard.js";
import { restoreFromJournal } from "./restore.js";
import type { Unwinder } from "./unwinder.js";

export interface LeadershipOptions {
  replay: () => Promise<JournalReplay>;
  claimer: Pick<Claimer, "setPaused" | "markDone" | "markUnknown">;
  unwinder: Pick<Unwinder, "takeOver">;
  ledger: PnlLedger;
  /** What claims assigned and is not unwound yet (unwind.scope: claimed). */
  claimed?: Pick<ClaimedPositions, "fromReplay" | "reconcile">;
  /** Samples the markouts of claims: continued from the journal when leading, stopped when deposed. */
  markouts?: Pick<MarkoutSampler, "resume" | "stop">;
  /** The protections carry on from the journal's last record (protectionGuard.ts). */
  protections?: Pick<ProtectionGuard, "adopt">;
  onRole: (leader: boolean) => void;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** How long to wait before replaying again when the replay failed. */
  retryMs?: number;
}

/** Order intents the journal left without a final outcome (looked up first), and the next order number. */
export function unsettledOrders(replay: JournalReplay): { unsettled: OrderIntentRecord[]; firstSeq: number } {
  const final = new Set(["filled", "cancelled", "rejected", "not_accepted", "dry_run"]);
  const unsettled: OrderIntentRecord[] = [];
  let last = replay.orderSeq ?? 0;
  for (const [cid, intent] of replay.orders.intents) {
    last = Math.max(last, intent.seq ?? 0);
    if (intent.dryRun) continue;
    if (!(replay.orders.outcomes.get(cid) ?? []).some((o) => final.has(o.result))) unsettled.push(intent);
  }
  return { unsettled, firstSeq: last + 1 };
}

/** The trades the journal holds of each unsettled order (folded into a snapshot, then in the tail). */
export function fillsSoFar(replay: JournalReplay, unsettled: readonly OrderIntentRecord[]): Map<string, OrderFillRecord[]> {
  const out = new Map<string, OrderFillRecord[]>();
  for (const intent of unsettled) out.set(intent.clientOrderId, [...(replay.orders.folded?.get(intent.clientOrderId) ?? [])]);
  for (const f of replay.orders.fills) out.get(f.clientOrderId)?.push(f);
  return out;
}

/** Everything a journal replay tells a replica that starts sending: ids never to claim, orders to settle, the P&L. */
export function adoptJournal(
  replay: JournalReplay,
  o: Pick<LeadershipOptions, "claimer" | "unwinder" | "ledger" | "claimed" | "markouts" | "protections">,
): { ids: number; unsettled: number } {
  const restored = restoreFromJournal(replay, o.claimer);
  const rebuild = (): void => {
    o.ledger.clear();
    ledgerFromJournal(replay, o.ledger);
  };
  if (o.protections === undefined) rebuild();
  else o.protections.adopt(replay, rebuild);
  // Before the unwinder looks at any position: what it may close of each comes from here.
  o.claimed?.fromReplay(replay);
  o.claimed?.reconcile();
  const { unsettled, firstSeq } = unsettledOrders(replay);
  o.unwinder.takeOver(unsettled, firstSeq, fillsSoFar(replay, unsettled));
  o.markouts?.resume(replay);
  return { ids: restored.ids, unsettled: unsettled.length };
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
        const adopted = adoptJournal(replay, o);
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
