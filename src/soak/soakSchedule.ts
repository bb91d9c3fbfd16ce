/**
 * The soak's fault plan: what goes wrong, and when, for a run of a given length. Pure: a list of
 * steps with times; soak.ts carries them out against the simulated venue and the daemon process.
 *
 * The faults spread over the middle of the run (from 8 % to 80 % of it) so that the start is clean
 * and the end has time to settle: a liquidation offered during the last fault must still be able
 * to be claimed before the run ends. A shorter run gets the same faults closer together and shorter
 * (a fault lasts at most 60 % of its slot, the stall 90 %, so two never overlap).
 */

export type FaultKind =
  /** Every stream socket cut without a close frame (a network drop). */
  | "stream_drop"
  /** Malformed frames on both streams (every kind but oversized), then one oversized public frame. */
  | "malformed"
  /** REST reads answered 503 with an HTML proxy page. */
  | "rest_5xx"
  /** Claims answered -1011 ("retry in a few seconds"). */
  | "claim_1011"
  /** The public stream goes silent (socket open, nothing moves), longer than the client's dead line when the run is long enough. */
  | "stall"
  /** Claims applied by the venue, their answers held back past the client's timeout (unknown outcomes). */
  | "claim_slow_answer"
  /** The daemon is killed with SIGKILL and started again on the same state dir. */
  | "kill9_restart"
  /** Every REST request answered 429 / -1003. */
  | "rate_limit_storm"
  /** Both streams closed with 1012 and new connections refused for a while. */
  | "stream_refuse"
  /** Claims whose connection is reset before the venue reads them (never applied). */
  | "claim_reset";

export interface FaultStep {
  /** Offset from the start of the run, ms. */
  atMs: number;
  kind: FaultKind;
  /** How long the fault lasts (0 = instantaneous). */
  durationMs: number;
  /** Human summary for the report. */
  detail: string;
}

const ORDER: readonly FaultKind[] = [
  "stream_drop",
  "malformed",
  "rest_5xx",
  "claim_1011",
  "stall",
  "claim_slow_answer",
  "kill9_restart",
  "rate_limit_storm",
  "stream_refuse",
  "claim_reset",
];

/** The client declares a silent socket dead after this (docs/protocol.md §5: 30 s). */
const STREAM_DEAD_AFTER_MS = 30_000;
/** The daemon's per-request timeout (config `venue.request_timeout_ms` default). */
export const REQUEST_TIMEOUT_MS = 5_000;

export function faultSchedule(runMs: number): FaultStep[] {
  if (!(runMs >= 60_000)) throw new RangeError("a soak runs at least one minute");
  const first = runMs * 0.08;
  const last = runMs * 0.8;
  const slot = (last - first) / (ORDER.length - 1);
  const within = (ms: number): number => Math.round(Math.min(ms, slot * 0.6));
  return ORDER.map((kind, i) => {
    const atMs = Math.round(first + i * slot);
    switch (kind) {
      case "stream_drop":
        return { atMs, kind, durationMs: 0, detail: "both streams terminated (1006)" };
      case "malformed":
        return { atMs, kind, durationMs: 0, detail: "400 malformed frames per stream + 1 oversized public frame" };
      case "rest_5xx": {
        const d = within(10_000);
        return { atMs, kind, durationMs: d, detail: `REST reads 503 (HTML) for ${sec(d)}` };
      }
      case "claim_1011":
        return { atMs, kind, durationMs: within(10_000), detail: "next 5 claims answered -1011" };
      case "stall": {
        // Past the dead line when there is room (a 10-minute run: 40 s): the client must notice the
        // silence itself. The slot after it is a quiet one's length, so this one may take 90 % of its own.
        const d = Math.round(Math.min(STREAM_DEAD_AFTER_MS + 10_000, slot * 0.9));
        return { atMs, kind, durationMs: d, detail: `public stream silent for ${sec(d)}` };
      }
      case "claim_slow_answer":
        return {
          atMs,
          kind,
          durationMs: within(20_000),
          detail: `next 3 claims applied, answered after ${sec(REQUEST_TIMEOUT_MS + 2_000)} (past the timeout)`,
        };
      case "kill9_restart":
        return { atMs, kind, durationMs: 2_000, detail: "SIGKILL, restart 2 s later on the same state dir" };
      case "rate_limit_storm": {
        const d = within(5_000);
        return { atMs, kind, durationMs: d, detail: `every REST request 429 / -1003 for ${sec(d)}` };
      }
      case "stream_refuse": {
        const d = within(5_000);
        return { atMs, kind, durationMs: d, detail: `streams closed (1012), reconnects refused for ${sec(d)}` };
      }
      case "claim_reset":
        return { atMs, kind, durationMs: within(10_000), detail: "next 3 claims: connection reset before the venue reads them" };
      default:
        throw new RangeError(`no schedule for fault ${kind satisfies never}`);
    }
  });
}

function sec(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}
