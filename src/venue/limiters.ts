/**
 * Client-side rate limiters for the venue's scopes (docs/protocol.md §4): public endpoints 10/s per IP,
 * claims 5/s, admin orders 10/s. Exceeding a limit costs a -1003 and, on the claim path, a missed
 * liquidation, so the limiters aim for "no 1-second sliding window ever holds more than the limit".
 *
 * Why spacing (bottleneck `minTime`) and not a reservoir: bottleneck refreshes a reservoir all at
 * once, so a full reservoir spent at the end of one window plus a fresh one at the start of the next
 * puts 2× the limit inside one second. Even spacing cannot do that.
 *
 * Why a slot is a tiny job with `maxConcurrent: 1` plus an actual-time guard: with unlimited
 * concurrency bottleneck registers every queued job at once, each with its own setTimeout; after an
 * event-loop stall (GC, a busy 2-core box) the overdue timers fire back to back and break the window.
 * Here the limiter only hands out start permits, one at a time, and each permit waits until `spacing`
 * has passed since the previous permit *actually* went out. A stall can only delay permits, never
 * bunch them. The request itself runs outside the limiter, so one slow response blocks nobody.
 *
 * Why `(1000 + JITTER_BUDGET_MS) / limit`: requests leave evenly spaced but reach the venue with
 * network jitter; L+1 requests fit in one venue-side second only if the first of them is delayed by
 * JITTER_BUDGET_MS more than the last. 50 ms covers ordinary internet jitter and costs ~5 % of the
 * budget (10/s → 105 ms spacing, 5/s → 210 ms).
 *
 * "Leave" means written to the socket: a claim is written later than its permit when its connection
 * must connect first, when it goes through the read pool (an event-loop turn later), or when the
 * process stalls in between. The transport restamps the claims scope at each claim's write
 * (restCore.ts → httpTransport.ts), so a late write does not eat the jitter budget of the next claim.
 * A write later than a whole spacing is only partly covered (the next permit may already be out).
 */
import Bottleneck from "bottleneck";
import { AbortedError, ConfigError } from "../errors.js";

const JITTER_BUDGET_MS = 50;

export type LimiterName = "public" | "claims" | "fund_claims" | "admin_orders" | "account_reads" | "orders";
export const LIMITER_NAMES: readonly LimiterName[] = ["public", "claims", "fund_claims", "admin_orders", "account_reads", "orders"];

export interface VenueLimitsConfig {
  public_per_second: number;
  claims_per_second: number;
  admin_orders_per_second: number;
  account_reads_per_second: number;
  orders_per_second: number;
}

export interface VenueLimiters {
  /**
   * Resolves when a request of scope `name` may start; start it at once. Rejects with AbortedError
   * when `signal` fires while waiting or the limiters are stopped.
   */
  acquire(name: LimiterName, signal?: AbortSignal): Promise<void>;
  /** A permit only if one is free now (nobody waiting, the gap elapsed): for requests that may be skipped. */
  tryAcquire(name: LimiterName): boolean;
  /**
   * The last permit's request starts only now (its holder had to wait for something else first): the
   * next permit is spaced from now, so a late start can never bring two requests closer together.
   */
  restamp(name: LimiterName): void;
  /** Callers waiting for a permit (for the `limiter_queued{limiter}` gauge). */
  queued(name: LimiterName): number;
  /** Minimum gap between two permits of a scope, ms. */
  spacingMs(name: LimiterName): number;
  /** Rejects every waiting caller with AbortedError and refuses new ones. */
  stop(): Promise<void>;
}

/** Spacing that keeps every 1000 ms window at or under `perSecond` with the jitter budget above. */
export function spacingFor(perSecond: number): number {
  return Math.ceil((1000 + JITTER_BUDGET_MS) / perSecond);
}

class ScopeLimiter {
  readonly spacing: number;
  readonly #bottleneck: Bottleneck;
  #lastPermitAt = Number.NEGATIVE_INFINITY;
  #waiting = 0;
  #stopped = false;

  constructor(perSecond: number) {
    this.spacing = spacingFor(perSecond);
    this.#bottleneck = new Bottleneck({ maxConcurrent: 1, minTime: this.spacing });
  }

  get waiting(): number {
    return this.#waiting;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (this.#stopped) return Promise.reject(new AbortedError("rate limiter stopped"));
    if (signal?.aborted) return Promise.reject(new AbortedError());
    const now = performance.now();
    // Fast path for the claim hot path: nobody queued and the gap already elapsed → no timer hop.
    // Safe because the guard in #permit reads the same #lastPermitAt.
    if (this.#waiting === 0 && now - this.#lastPermitAt >= this.spacing) {
      this.#lastPermitAt = now;
      return Promise.resolve();
    }
    return this.#queue(signal);
  }

  restamp(): void {
    this.#lastPermitAt = Math.max(this.#lastPermitAt, performance.now());
  }

  tryAcquire(): boolean {
    const now = performance.now();
    if (this.#stopped || this.#waiting > 0 || now - this.#lastPermitAt < this.spacing) return false;
    this.#lastPermitAt = now;
    return true;
  }

  #queue(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting++;
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        this.#waiting--;
        signal?.removeEventListener("abort", onAbort);
        return true;
      };
      const onAbort = (): void => {
        if (settle()) reject(new AbortedError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      // The caller is resolved from inside the permit job, at the instant the permit is recorded:
      // bottleneck's own result promise arrives a timer hop later, and a stall in that hop would
      // let two callers start back to back.
      const grant = (): void => {
        if (settle()) resolve();
      };
      this.#bottleneck
        .schedule(() => this.#permit(() => settled, grant))
        .catch((err: unknown) => {
          // bottleneck rejects the jobs still queued when it is stopped.
          if (settle()) reject(new AbortedError("rate limiter stopped", { cause: err }));
        });
    });
  }

  /** Runs as a bottleneck job, one at a time: waits out the spacing by the real clock, then grants. */
  async #permit(abandoned: () => boolean, grant: () => void): Promise<void> {
    if (abandoned()) return; // a caller that gave up must not use up a slot
    // A loop, because a timer may fire a fraction of a millisecond early by performance.now().
    for (let gap = this.#gap(); gap > 0; gap = this.#gap()) {
      await new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(gap)));
      if (abandoned()) return;
    }
    this.#lastPermitAt = performance.now();
    grant();
  }

  #gap(): number {
    return this.spacing - (performance.now() - this.#lastPermitAt);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }
}

function checkRate(key: keyof VenueLimitsConfig, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > 10_000) {
    throw new ConfigError(`venue.limits.${key}`, `must be a positive number of requests per second (at most 10000), got ${String(value)}`);
  }
  return value;
}

export function createVenueLimiters(limits: VenueLimitsConfig): VenueLimiters {
  const scopes: Record<LimiterName, ScopeLimiter> = {
    public: new ScopeLimiter(checkRate("public_per_second", limits.public_per_second)),
    claims: new ScopeLimiter(checkRate("claims_per_second", limits.claims_per_second)),
    // docs/protocol.md §10: POST /v1/claim_insurance_fund is 5/s like claims, in a window of its own: a
    // fund claim never takes a liquidation claim's permit.
    fund_claims: new ScopeLimiter(checkRate("claims_per_second", limits.claims_per_second)),
    admin_orders: new ScopeLimiter(checkRate("admin_orders_per_second", limits.admin_orders_per_second)),
    account_reads: new ScopeLimiter(checkRate("account_reads_per_second", limits.account_reads_per_second)),
    orders: new ScopeLimiter(checkRate("orders_per_second", limits.orders_per_second)),
  };
  return {
    acquire: (name, signal) => scopes[name].acquire(signal),
    tryAcquire: (name) => scopes[name].tryAcquire(),
    restamp: (name) => scopes[name].restamp(),
    queued: (name) => scopes[name].waiting,
    spacingMs: (name) => scopes[name].spacing,
    stop: async () => {
      await Promise.all(LIMITER_NAMES.map((n) => scopes[n].stop()));
    },
  };
}
