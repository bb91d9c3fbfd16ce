/**
 * Start-up from the journal: every id with an intent is never claimed again (accepted, unknown or
 * refused alike — "never the same claim twice" survives kill -9), and exposure is rebuilt from what
 * was accepted plus what may have been (unknown outcomes count, conservatively) until the private
 * stream's `position` push replaces it with the venue's own numbers.
 */
import type { Exposure } from "../engine/exposure.js";
import type { Claimer } from "./claimer.js";
import type { JournalReplay } from "./journal.js";

export interface RestoreSummary {
  ids: number;
  accepted: number;
  unresolved: number;
}

export function restoreFromJournal(replay: JournalReplay, claimer: Pick<Claimer, "markDone">, exposure: Pick<Exposure, "heldQty" | "setHeld">): RestoreSummary {
  const held = new Map<string, number>();
  const add = (symbol: string, qty: number): void => void held.set(symbol, (held.get(symbol) ?? 0) + qty);
  let accepted = 0;
  let unresolved = 0;
  for (const [id, intent] of replay.intents) {
    claimer.markDone(id);
    if (intent.dryRun) continue;
    const outcomes = replay.outcomes.get(id) ?? [];
    const settled = outcomes.find((o) => o.result === "accepted" || o.result === "confirmed");
    if (settled !== undefined) {
      accepted++;
      for (const f of settled.fills ?? []) add(f.symbol, f.qty);
      continue;
    }
    const last = outcomes.at(-1);
    // No outcome at all (killed in flight) or an unknown one never closed: it may be ours.
    if (last === undefined || last.result === "unknown") {
      unresolved++;
      for (const [symbol, qty] of Object.entries(intent.perSymbolQty)) add(symbol, qty);
    }
  }
  for (const [symbol, qty] of held) exposure.setHeld(symbol, exposure.heldQty(symbol) + qty);
  return { ids: replay.intents.size, accepted, unresolved };
}
