/** What the live claimer (claimer.ts) is given: the pipeline's inputs and the live effects. */
import type { Exposure } from "../engine/exposure.js";
import type { PauseReason } from "../engine/pauseReasons.js";
import type { Decision } from "../engine/policy.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { Fill, Liquidation } from "../engine/types.js";
import type { StateStore } from "../store/stateStore.js";
import type { ClaimOutcomeTimings } from "./claimOutcomes.js";
import type { ClaimGate, ClaimWire } from "./claimPipeline.js";
import type { ClaimSender } from "./claimSender.js";
import type { OpenBook } from "./openBook.js";
import type { OpportunityLedger } from "./opportunityLedger.js";

/** Metrics and logs hang off this; the claimer does not know prom-client. */
export interface ClaimerObserver {
  skipped(reason: string): void;
  submitted(): void;
  result(result: string, code: string, claimLatencySeconds: number | undefined): void;
  decisionLatency(seconds: number): void;
  feeEarned(symbol: string, amount: number): void;
  paused(reason: PauseReason, on: boolean): void;
  /** A claim the venue applied transferred `fills` (the P&L ledger's input). */
  settled?(id: number, fills: readonly Fill[], venueTs: number): void;
  /** A claim applied by a lean answer, before its fills are known: the quantities it requested. */
  acceptedUnsized?(id: number, requested: Readonly<Record<string, number>>): void;
}

export interface ClaimerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ClaimerOptions extends Partial<ClaimOutcomeTimings> {
  decide: (liquidation: Liquidation, now: number) => Decision;
  /** The protection gate, asked before deciding (claimPipeline.ts); none: always open. */
  gate?: ClaimGate;
  book: OpenBook;
  exposure: Exposure;
  /** The venue's held positions (what a settled claim adds to, and what the venue's reports replace). */
  positions: PositionBook;
  /** The claims limiter's permit (limiters.acquire("claims", signal)). */
  acquire: (signal: AbortSignal) => Promise<void>;
  /** A permit only if one is free now (sendNow); none: claims leave from the pump only. */
  tryAcquire?: () => boolean;
  sender: ClaimSender;
  /** The signed request text of a claim, never written (the rehearsal); none: rehearsals stop at the body. */
  wire?: ClaimWire;
  /** The journal: intents before sending, outcomes after (stateStore.ts). */
  store: Pick<StateStore, "intent" | "append" | "mayLead">;
  observer: ClaimerObserver;
  /** The opportunity ledger: skip verdicts and departures of open ids (opportunityLedger.ts). */
  opportunities?: Pick<OpportunityLedger, "skipped" | "left">;
  logger: ClaimerLogger;
  /**
   * Re-read the account now (RestFeed.requestPositions): after a -1101 the model was wrong; its
   * answer reaches `Claimer.accountRead`. None: the -1101 hold lasts `marginPauseMs`.
   */
  rereadAccount?: () => void;
  /** How long a finished id is remembered once it has left the open list (`sweep`), ms; default 10 min. */
  sweepAfterMs?: number;
  /** Wall clock, ms (decisions, journal). */
  now?: () => number;
  /** Monotonic clock, ms (latencies). */
  monotonic?: () => number;
}

export const DEFAULT_TIMINGS: ClaimOutcomeTimings = {
  marginPauseMs: 60_000,
  retryDelayMs: 500,
  rateLimitHoldMs: 1_000,
  unknownTimeoutMs: 120_000,
  openListSettleMs: 30_000,
  repriceBackoffMs: 2_000,
};
