/**
 * The failure table: what each venue code (docs/protocol.md §3) means for a claim, an unwind order,
 * an order lookup and a read, which `claims_result_total{result}` label it counts under, how often a
 * claim refused with it is re-decided, and whether the liquidation id stays claimable in the journal.
 * One row per code, plus `UNKNOWN_CODE` for any code the table does not list (the real venue's
 * `limit_price` and unknown-order codes are not published, docs/protocol.md §9). Every caller asks this
 * table; nobody else compares venue codes. Pure data and arithmetic: errors.ts reads errors with it.
 */

/** What a claim refused with a venue code does next (daemon/claimOutcomes.ts acts on it). */
export type ClaimFailureAction =
  /** Gone or fully claimed: forget it. */
  | "gone"
  /** Another claim on the id is in process: try once more a little later. */
  | "retry_racing"
  /** Not processed (retry in a few seconds, or the request never left): try again later. */
  | "retry_transient"
  /** The claim window is full: put it back and hold every claim for one window. */
  | "backoff"
  /** The mark moved past our limit: re-decide on fresh marks while the id stays open. */
  | "reevaluate"
  /** A code the table does not know: not final; re-decided while open, a bounded number of times. */
  | "redecide"
  /**
   * Not enough margin by the venue's count: the account model was wrong. Re-read the account at once,
   * hold claims until it answers, then claim again what the corrected model says fits.
   */
  | "reread_account"
  /** The request may have reached the venue and no answer came: never resent blindly. */
  | "unknown"
  /** Any other refusal: record it and move on. */
  | "rejected";

/** What an unwind order refused with a venue code does next (daemon/unwind/unwinder.ts acts on it). */
export type OrderFailureAction =
  /** The position is smaller than thought (or gone): re-read positions before the next slice. */
  | "reread_positions"
  /** The price is out of the allowed band: re-price on a fresh mark. */
  | "reprice"
  /** Not processed: retry with backoff. */
  | "retry"
  /** The order limit is full: wait one window. */
  | "backoff"
  /** Must not happen to a reduce-only order: stop unwinding that symbol and alert. */
  | "halt_symbol"
  /** Anything else: count it, retry the slice later. */
  | "rejected";

/** What a lookup of an order by client order id answered with a venue code means (daemon/unwind/unwindOrderCalls.ts). */
export type LookupFailureAction =
  /** The venue says it has no such order: it never arrived. */
  | "absent"
  /** Not processed (rate limit, retry later): ask again. */
  | "retry"
  /** Anything else, e.g. -1000 "data does not exist" (HTTP 500): settle through GET /v1/orders and positions. */
  | "settle";

/**
 * How a claim that will be re-decided is spaced: attempt n (0-based) waits `delay`'s base × 2^min(n, maxDoublings)
 * (or nothing for the first when `atOnceFirst`, then doubling from the base), for at most `tries` attempts.
 */
export interface ClaimRetry {
  readonly tries: number;
  /** Which configured delay is the base: the short retry delay, the re-price backoff, or none (0). */
  readonly delay: "retry" | "reprice" | "none";
  readonly atOnceFirst: boolean;
  readonly maxDoublings: number;
}

export type VenueErrorKind =
  | "unknown"
  | "bad_signature"
  | "unauthorized"
  | "rate_limited"
  | "unknown_param"
  | "bad_param"
  | "not_found"
  | "duplicate"
  | "retry_later"
  | "claim_in_process"
  | "insufficient_margin"
  | "price_filter"
  | "ratio_too_small"
  | "liquidation_gone"
  | "price_moved"
  | "min_notional"
  | "quantity_filter"
  | "reduce_only_refused"
  | "unmapped";

export interface VenueCodeMeaning {
  readonly kind: VenueErrorKind;
  /** The HTTP status the venue pairs it with. */
  readonly status: number;
  readonly text: string;
  /** A GET answered with it may be retried. */
  readonly retryRead: boolean;
  readonly claim: ClaimFailureAction;
  readonly order: OrderFailureAction;
  readonly lookup: LookupFailureAction;
  /**
   * `claims_result_total{result}` of a claim refused with it: `rejected` when competition or the
   * market explains it, `error` when it should not happen.
   */
  readonly result: "rejected" | "error";
  /** The re-decision schedule of a claim refused with it; undefined: not re-decided (or held in the queue). */
  readonly retry: ClaimRetry | undefined;
  /** After a claim refused with it the id may be claimed again (the journal's `retryable` state). */
  readonly reclaimable: boolean;
}

/** Bounded re-decision of an unknown code: at once, then 2×, 4×, 8× the re-price backoff… six tries in all. */
const UNKNOWN_CODE_TRIES = 6;

/** The schedule each re-decided claim action follows; reread_account waits in the queue, a bounded number of times. */
const CLAIM_RETRY: Readonly<Record<ClaimFailureAction, ClaimRetry | undefined>> = {
  // -1012: once more, then the id is the rival's.
  retry_racing: { tries: 1, delay: "retry", atOnceFirst: false, maxDoublings: 0 },
  // -1011 or never sent: doubling delays, a few times.
  retry_transient: { tries: 4, delay: "retry", atOnceFirst: false, maxDoublings: 3 },
  // -1003: the one-window hold on every claim bounds the rate, so the id waits its turn while open.
  backoff: { tries: Number.POSITIVE_INFINITY, delay: "none", atOnceFirst: true, maxDoublings: 0 },
  // -1203: the price may come back within the guard while the liquidation stays open.
  reevaluate: { tries: Number.POSITIVE_INFINITY, delay: "reprice", atOnceFirst: true, maxDoublings: 3 },
  // An unknown code may be a re-priceable refusal: the same schedule, but bounded.
  redecide: { tries: UNKNOWN_CODE_TRIES, delay: "reprice", atOnceFirst: true, maxDoublings: 3 },
  // -1101: the id waits in the queue for the re-read; refused again after as many re-reads, it is dropped
  // (a model that keeps disagreeing with the venue must not spend a claim per re-read forever).
  reread_account: { tries: 3, delay: "none", atOnceFirst: true, maxDoublings: 0 },
  gone: undefined,
  unknown: undefined,
  rejected: undefined,
};

/** Refusals after which the id stays claimable: every re-decided one, and margin (re-queued after the re-read). */
const RECLAIMABLE: ReadonlySet<ClaimFailureAction> = new Set([
  "retry_racing",
  "retry_transient",
  "backoff",
  "reevaluate",
  "redecide",
  "reread_account",
]);

const row = (
  kind: VenueErrorKind,
  status: number,
  text: string,
  claim: ClaimFailureAction,
  order: OrderFailureAction,
  lookup: LookupFailureAction,
  result: "rejected" | "error",
  retryRead = false,
): VenueCodeMeaning => ({
  kind,
  status,
  text,
  retryRead,
  claim,
  order,
  lookup,
  result,
  retry: CLAIM_RETRY[claim],
  reclaimable: RECLAIMABLE.has(claim),
});

/** docs/protocol.md §3: every code the venue answers, and what it means here. */
export const VENUE_CODES: ReadonlyMap<number, VenueCodeMeaning> = new Map([
  [-1000, row("unknown", 500, "unknown error", "rejected", "retry", "settle", "error")],
  [-1001, row("bad_signature", 401, "signature or key in wrong format", "rejected", "rejected", "settle", "error")],
  [-1002, row("unauthorized", 401, "key not authorised or timestamp out of range", "rejected", "rejected", "settle", "error")],
  [-1003, row("rate_limited", 429, "rate limit exceeded", "backoff", "backoff", "retry", "error", true)],
  [-1004, row("unknown_param", 400, "unknown parameter", "rejected", "rejected", "settle", "error")],
  [-1005, row("bad_param", 400, "parameter in wrong format or out of range", "rejected", "rejected", "settle", "error")],
  [-1006, row("not_found", 400, "data not found", "rejected", "rejected", "absent", "error")],
  [-1007, row("duplicate", 409, "duplicate request", "rejected", "rejected", "settle", "error")],
  [-1011, row("retry_later", 400, "internal network error, retry later", "retry_transient", "retry", "retry", "error", true)],
  [-1012, row("claim_in_process", 400, "another request is in process", "retry_racing", "retry", "retry", "rejected")],
  [-1101, row("insufficient_margin", 400, "insufficient margin", "reread_account", "halt_symbol", "settle", "rejected")],
  [-1102, row("min_notional", 400, "order value below the minimum notional", "rejected", "rejected", "settle", "error")],
  [-1104, row("quantity_filter", 400, "quantity outside the symbol's filters", "rejected", "reread_positions", "settle", "error")],
  [-1103, row("price_filter", 400, "price outside the quote bounds or off the tick", "rejected", "reprice", "settle", "error")],
  [-1105, row("price_filter", 400, "price outside the allowed range", "rejected", "reprice", "settle", "error")],
  [
    -1106,
    row("reduce_only_refused", 400, "reduce-only order would not reduce the position", "rejected", "reread_positions", "settle", "error"),
  ],
  // Final, unless its message names the ratio the venue wants (venue/errors.ts claimFailureAction):
  // then decided once more, so the journal keeps the id claimable.
  [-1201, { ...row("ratio_too_small", 400, "claim ratio too small", "rejected", "rejected", "settle", "rejected"), reclaimable: true }],
  [-1202, row("liquidation_gone", 400, "liquidation gone or fully claimed", "gone", "rejected", "settle", "rejected")],
  [-1203, row("price_moved", 400, "claim rejected by limit_price", "reevaluate", "reprice", "settle", "rejected")],
]);

/**
 * A code the table does not know. A claim refused with it is re-decided while the id is open (the
 * real venue's `limit_price` code is unpublished: a re-priceable claim must not be dropped for good),
 * an order is retried later, a lookup is settled through the order list, and it counts as an error.
 */
export const UNKNOWN_CODE: VenueCodeMeaning = row(
  "unmapped",
  400,
  "venue code not in the failure table",
  "redecide",
  "rejected",
  "settle",
  "error",
);

/** The venue's "unknown error": the code of an error answer that carries no usable one. */
export const UNKNOWN_ERROR_CODE = -1000;
/** The venue's "rate limit exceeded". */
export const RATE_LIMITED_CODE = -1003;
/** The venue's "insufficient margin" (the bench counts these refusals). */
export const INSUFFICIENT_MARGIN_CODE = -1101;
/** The liquidation is gone or fully claimed (a rival was first): what the lab's modelled venue answers a lost claim. */
export const GONE_CODE = -1202;
/** -1201: the claim's ratio is below what the venue takes (a full take-over below the notional threshold). */
export const RATIO_TOO_SMALL_CODE = -1201;

/** The code an error page without a venue envelope (a proxy's, a load balancer's) stands for, by HTTP status. */
export function codeForBareStatus(status: number): number {
  return status === 429 ? RATE_LIMITED_CODE : UNKNOWN_ERROR_CODE;
}

export function venueCodeMeaning(code: number): VenueCodeMeaning {
  return VENUE_CODES.get(code) ?? UNKNOWN_CODE;
}

export function isKnownVenueCode(code: number): boolean {
  return VENUE_CODES.has(code);
}

/**
 * A claim's next step for a refusal with this meaning at this HTTP status. A 5xx is ambiguous for a
 * write (the venue may have applied the claim before failing), so an answer that does not say "not
 * processed" becomes `unknown` and is never resent blindly.
 */
export function claimActionAt(meaning: VenueCodeMeaning, status: number): ClaimFailureAction {
  const action = meaning.claim;
  return status >= 500 && (action === "rejected" || action === "redecide") ? "unknown" : action;
}

/** A claim refused with `code` (undefined: the request never left) leaves the id claimable in the journal. */
export function reclaimableAfterRefusal(code: number | undefined): boolean {
  return code === undefined ? RECLAIMABLE.has("retry_transient") : venueCodeMeaning(code).reclaimable;
}

/**
 * What a claim refused with `code` says about a rival: `taken` — the id is gone or fully claimed
 * (-1202), someone else was first; `racing` — another claim on it is in process (-1012), the
 * rival's if the id then leaves before ours gets in. The opportunity ledger counts both as `lost`.
 */
export function rivalSignOf(code: number | undefined): "taken" | "racing" | undefined {
  if (code === undefined) return undefined;
  const action = venueCodeMeaning(code).claim;
  return action === "gone" ? "taken" : action === "retry_racing" ? "racing" : undefined;
}

/** The re-decision schedule of a claim action (undefined: not re-decided). */
export function claimRetryOf(action: ClaimFailureAction): ClaimRetry | undefined {
  return CLAIM_RETRY[action];
}

/**
 * Delay before re-deciding attempt `n` (0-based) of `schedule`, or undefined once its budget is
 * spent. `retryMs` and `repriceMs` are the claimer's configured bases.
 */
export function claimRetryDelay(schedule: ClaimRetry, n: number, bases: { retryMs: number; repriceMs: number }): number | undefined {
  if (n >= schedule.tries) return undefined;
  if (schedule.delay === "none" || (schedule.atOnceFirst && n === 0)) return 0;
  const base = schedule.delay === "retry" ? bases.retryMs : bases.repriceMs;
  const step = schedule.atOnceFirst ? n - 1 : n;
  return base * 2 ** Math.min(step, schedule.maxDoublings);
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { UNKNOWN_CODE_TRIES as UNKNOWN_CODE_TRIES_FOR_TESTS };
