/**
 * Start-up from the journal: every id with an intent is never claimed again (accepted, unknown or
 * refused alike — "never the same claim twice" survives kill -9; dry-run intents excepted, as they
 * sent nothing), and exposure is rebuilt until the
 * private stream's next `position` push replaces it with the venue's own numbers.
 *
 * Exposure starts from the last `positions` snapshot journaled (the venue's word), plus what was
 * accepted after it, plus what may have been (claims in flight at a kill, unknown outcomes:
 * conservatively counted). Fix: it used to be the sum of every fill ever journaled, so positions
 * the account had closed since came back on every restart; over a week that passes any
 * max_total_exposure, and with no claim there is no `position` push to correct it: the daemon
 * claimed nothing after a restart.
 */
import type { Exposure } from "../engine/exposure.js";
import type { Claimer } from "./claimer.js";
import type { JournalReplay } from "./journal.js";

export interface RestoreSummary {
  ids: number;
  accepted: number;
  unresolved: number;
  /** True when exposure started from a journaled `position` snapshot. */
  fromSnapshot: boolean;
}

/**
 * A claim the venue applied is followed at once by a `position` push. An unresolved intent sent
 * this long before the last snapshot is therefore already in it (or never happened); generous,
 * because a request may wait out `venue.request_timeout_ms` before its fate is known.
 */
export const SNAPSHOT_COVERS_AFTER_MS = 600_000;

export function restoreFromJournal(
  replay: JournalReplay,
  claimer: Pick<Claimer, "markDone">,
  exposure: Pick<Exposure, "heldQty" | "setHeld">,
): RestoreSummary {
  const held = new Map<string, number>();
  const add = (symbol: string, qty: number): void => void held.set(symbol, (held.get(symbol) ?? 0) + qty);
  const snap = replay.positions;
  for (const [symbol, qty] of Object.entries(snap?.held ?? {})) add(symbol, qty);
  let accepted = 0;
  let unresolved = 0;
  for (const [id, intent] of replay.intents) {
    // A dry-run decision sent nothing: after a restart (perhaps live now) the id may be claimed.
    if (intent.dryRun) continue;
    claimer.markDone(id);
    const outcomes = replay.outcomes.get(id) ?? [];
    const settled = outcomes.find((o) => o.result === "accepted" || o.result === "confirmed");
    if (settled !== undefined) {
      accepted++;
      // Applied at or before the snapshot's venue time: already in it. No venue time (an older
      // journal): counted, conservatively.
      if (snap !== undefined && settled.venueTs !== undefined && settled.venueTs <= snap.venueTs) continue;
      for (const f of settled.fills ?? []) add(f.symbol, f.qty);
      continue;
    }
    const last = outcomes.at(-1);
    // No outcome at all (killed in flight) or an unknown one never closed: it may be ours.
    if (last === undefined || last.result === "unknown") {
      if (snap !== undefined && intent.at < snap.at - SNAPSHOT_COVERS_AFTER_MS) continue;
      unresolved++;
      for (const [symbol, qty] of Object.entries(intent.perSymbolQty)) add(symbol, qty);
    }
  }
  for (const [symbol, qty] of held) exposure.setHeld(symbol, exposure.heldQty(symbol) + qty);
  return { ids: replay.intents.size, accepted, unresolved, fromSnapshot: snap !== undefined };
}
