/**
 * Start-up from the journal: every id with an outcome is never claimed again (accepted, unknown or
 * refused alike — "never the same claim twice" survives kill -9; dry-run intents excepted, as they
 * sent nothing). An intent with no outcome at all (the process died in between) is an unknown
 * outcome: the open list settles it, exactly as it settles a lost answer (claimOutcomes.ts).
 *
 * Held positions are NOT rebuilt from the journal: positions change without the daemon (an operator
 * closing them by hand, another process on the account, unwinding orders), so only the venue can
 * say what the account holds. Claiming waits for `GET /v1/positions` (restFeed.ts) instead.
 */

import type { JournalReplay } from "../store/journalRecords.js";
import type { Claimer } from "./claimer.js";

export interface RestoreSummary {
  /** Ids never to claim again. */
  ids: number;
  accepted: number;
  /** Intents with no outcome (killed in flight) or an unknown one never settled. */
  unresolved: number;
}

export function restoreFromJournal(replay: JournalReplay, claimer: Pick<Claimer, "markDone" | "markUnknown">): RestoreSummary {
  let ids = 0;
  let accepted = 0;
  let unresolved = 0;
  // Settled in compacted history (their records are in the history segments): never again.
  for (const id of replay.done ?? []) {
    claimer.markDone(id);
    ids++;
  }
  for (const [id, intent] of replay.intents) {
    // A dry-run decision sent nothing: after a restart (perhaps live now) the id may be claimed.
    if (intent.dryRun) continue;
    ids++;
    const outcomes = replay.outcomes.get(id) ?? [];
    // Killed between the intent and the answer: settled by the open list, as a lost answer is.
    if (outcomes.length === 0 && intent.open !== undefined) claimer.markUnknown(id, intent.open);
    else claimer.markDone(id);
    if (outcomes.some((o) => o.result === "accepted" || o.result === "confirmed")) accepted++;
    else if (outcomes.length === 0 || outcomes.at(-1)?.result === "unknown") unresolved++;
  }
  return { ids, accepted, unresolved };
}
