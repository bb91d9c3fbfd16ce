/**
 * The claim path's families: liquidations seen, claims sent and their results, skips and pauses,
 * what became of each opportunity, latencies, the connection a claim left on, fees earned and the
 * markouts after a claim. Each label list in a help text comes from the array its values come from.
 */

import { type Counter, type Gauge, Histogram, type Registry } from "prom-client";
import { MARKOUT_HORIZONS } from "../engine/markouts.js";
import { OPPORTUNITY_OUTCOMES } from "../engine/opportunities.js";
import { PAUSE_REASONS } from "../engine/pauseReasons.js";
import { SUPPLIES } from "../engine/supply.js";
import { SKIP_REASONS } from "../engine/types.js";
import { CLAIM_RESULTS } from "./failureLabels.js";
import { metricMakers, oneOf } from "./metricMakers.js";

/** Markouts, bps of the transfer price (positive = against us): symmetric, a few bps to a few %. */
const MARKOUT_BUCKETS_BPS: readonly number[] = [-500, -200, -100, -50, -20, -10, -5, -2, 0, 2, 5, 10, 20, 50, 100, 200, 500];

/** `claim_connections_total{kind}`: warm (kept open), fresh (had to connect first), pool (every claim lane busy). */
const CLAIM_CONNECTION_KINDS = ["warm", "fresh", "pool"] as const;

export interface ClaimMetrics {
  readonly liquidationsSeen: Counter;
  readonly claimsSubmitted: Counter<"supply">;
  readonly claimsResult: Counter<"result" | "code">;
  readonly claimsSkipped: Counter<"reason">;
  /** Liquidations by the fate the opportunity ledger settled (claimed, lost, skipped, expired) and its reason. */
  readonly opportunities: Counter<"outcome" | "reason" | "supply">;
  /** Expected liquidator fee at stake of those liquidations since the start, quote (only grows; not `_total`, a sum of money). */
  readonly opportunityValue: Gauge<"outcome" | "reason">;
  /** Seconds, frame received → claim response. */
  readonly claimLatency: Histogram;
  /** Seconds, frame received → request written. */
  readonly decisionLatency: Histogram;
  readonly claimConnections: Counter<"kind">;
  readonly claimRehearsals: Counter;
  readonly feeEarned: Counter<"symbol">;
  /** The mark at a horizon after a claim against its transfer price, bps, positive = against us. */
  readonly markoutBps: Histogram<"horizon">;
  readonly claimingPaused: Gauge<"reason">;
  /** Claims whose outcome is not known yet (answer lost, killed in flight, fills not said). */
  readonly claimsUnknown: Gauge;
  /** Unknown claims the venue's record could not settle within their bound. */
  readonly claimsGivenUp: Counter;
  /** Rows of a venue list that could not be read (skipped; the rest of the page is used). */
}

export function createClaimMetrics(registry: Registry, prefix: string): ClaimMetrics {
  const { counter, gauge, histogram } = metricMakers(registry, prefix);
  const metrics: ClaimMetrics = {
    liquidationsSeen: counter("liquidations_seen_total", "Liquidations heard on the streams or the REST reconcile (each id once)"),
    claimsSubmitted: counter("claims_submitted_total", `Claims sent to the venue, by supply (${oneOf(SUPPLIES)})`, ["supply"]),
    claimsResult: counter("claims_result_total", `Claim outcomes by result (${oneOf(CLAIM_RESULTS)}) and venue/local code`, [
      "result",
      "code",
    ]),
    claimsSkipped: counter(
      "claims_skipped_total",
      `Liquidations (or claims) not sent, by policy reason (${oneOf(SKIP_REASONS)}) or gone (left the open list while queued)`,
      ["reason"],
    ),
    opportunities: counter(
      "opportunities_total",
      `Liquidations seen, by what became of them (${oneOf(OPPORTUNITY_OUTCOMES)}), why, and their supply (${oneOf(SUPPLIES)})`,
      ["outcome", "reason", "supply"],
    ),
    opportunityValue: gauge(
      "opportunity_value_quote",
      "Expected liquidator fee at stake of the liquidations seen since the start, by what became of them and why (quote)",
      ["outcome", "reason"],
    ),
    claimLatency: histogram("claim_latency_seconds", "Frame received to claim response"),
    decisionLatency: histogram("decision_latency_seconds", "Frame received to claim request written"),
    claimConnections: counter(
      "claim_connections_total",
      "Claims by the connection they went out on: warm (kept open), fresh (had to connect first), pool (every claim lane busy)",
      ["kind"],
    ),
    claimRehearsals: counter(
      "claim_rehearsals_total",
      "Runs of the claim path on the last liquidation seen that send nothing (venue.claim_rehearsal_ms): they keep it in the CPU caches",
    ),
    feeEarned: counter("fee_earned_total", "Liquidator fee earned from successful claims (quote)", ["symbol"]),
    claimsUnknown: gauge(
      "claims_unknown",
      "Claims whose outcome is not known yet: the answer was lost, the process died in flight, or the answer did not say what it transferred",
    ),
    claimsGivenUp: counter(
      "claims_given_up_total",
      "Unknown claims the venue's record (and the open list) could not settle within their bound: never claimed again, counted as ours as far as the positions show",
    ),
    markoutBps: new Histogram<"horizon">({
      name: `${prefix}markout_bps`,
      help: `The mark at a horizon (${oneOf(MARKOUT_HORIZONS)}) after a claim against its transfer price, bps (positive = against us)`,
      labelNames: ["horizon"],
      buckets: [...MARKOUT_BUCKETS_BPS],
      registers: [registry],
    }),
    claimingPaused: gauge("claiming_paused", `1 while claiming is paused for the reason (${oneOf(PAUSE_REASONS)})`, ["reason"]),
  };
  // Series that alerts and panels compare with 0 must exist before the first event.
  for (const horizon of MARKOUT_HORIZONS) metrics.markoutBps.zero({ horizon });
  for (const kind of CLAIM_CONNECTION_KINDS) metrics.claimConnections.inc({ kind }, 0);
  metrics.liquidationsSeen.inc(0);
  for (const outcome of OPPORTUNITY_OUTCOMES) {
    // One zero series per outcome (reason empty) so that a sum by outcome exists from the start.
    for (const supply of SUPPLIES) metrics.opportunities.inc({ outcome, reason: "", supply }, 0);
    metrics.opportunityValue.set({ outcome, reason: "" }, 0);
  }
  for (const supply of SUPPLIES) metrics.claimsSubmitted.inc({ supply }, 0);
  metrics.claimRehearsals.inc(0);
  return metrics;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { CLAIM_CONNECTION_KINDS as CLAIM_CONNECTION_KINDS_FOR_TESTS };
