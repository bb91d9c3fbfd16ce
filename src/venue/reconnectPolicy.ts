/**
 * When a stream reconnects after a connection ended. Pure apart from the injected `random`.
 *
 * - A connection that had become ready and is lost: the venue was fine a moment ago, so the next
 *   attempt goes out at once, after a small jitter (≤ `lostReadyJitterMs`) that keeps a crowd of
 *   clients from reconnecting in the same millisecond. Cascades come with flapping streams: every
 *   second spent waiting is a second of liquidations seen late.
 * - Consecutive failed attempts (refused, closed before ready, no ack): full-jitter exponential
 *   backoff (backoff.ts), whose ceiling is capped at `healthyMaxMs` while the venue's REST API
 *   answers (the venue is up; its stream gateway is flapping) and at `maxMs` otherwise.
 * - A refused private auth: its own growing backoff, never capped by REST health and reset only by
 *   a successful auth. A key the venue rejects must not be presented a few times a second.
 *
 * A connection lost within `minReadyMs` of becoming ready counts as a failed attempt: a gateway that
 * accepts, acknowledges and drops every connection at once must still see growing delays.
 */

import { InvalidArgumentError } from "../errors.js";
import { backoffCeiling, fullJitterDelay } from "./backoff.js";

export type ConnectionEnd =
  /** The connection had been ready for at least `minReadyMs`. */
  | "lost_ready"
  /** Never became ready (connect refused, closed, no ack, timeout), or lost right after. */
  | "failed"
  /** The private auth was refused. */
  | "auth_failed";

export interface ReconnectPolicyOptions {
  /** Ceiling of the first delay after a failed attempt, ms. Default 500. */
  initialMs?: number;
  /** Largest ceiling while REST is not healthy, ms. Default 30,000. */
  maxMs?: number;
  /** Largest ceiling while REST answers, ms. Default 5,000 (never above maxMs). */
  healthyMaxMs?: number;
  /** Largest delay after a ready connection was lost, ms. Default 250. */
  lostReadyJitterMs?: number;
  /** A connection lost sooner than this after becoming ready counts as a failed attempt. Default 1,000. */
  minReadyMs?: number;
  /** Ceiling of the first delay after a refused auth, ms. Default 2,000. */
  authInitialMs?: number;
  /** Largest ceiling after refused auths, ms. Default 120,000. */
  authMaxMs?: number;
  /** Uniform source in [0, 1]. Default Math.random. */
  random?: () => number;
}

export interface ReconnectDelay {
  delayMs: number;
  /** The ceiling the delay was drawn under (for logs). */
  ceilingMs: number;
}

const DEFAULTS = {
  initialMs: 500,
  maxMs: 30_000,
  healthyMaxMs: 5_000,
  lostReadyJitterMs: 250,
  minReadyMs: 1_000,
  authInitialMs: 2_000,
  authMaxMs: 120_000,
} as const;

function ms(key: keyof typeof DEFAULTS, value: number | undefined, allowZero = false): number {
  const v = value ?? DEFAULTS[key];
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || (!allowZero && v === 0) || v > 2_147_483_647) {
    throw new InvalidArgumentError(`reconnect.${key} must be a finite number of milliseconds`);
  }
  return v;
}

export class ReconnectPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly healthyMaxMs: number;
  readonly lostReadyJitterMs: number;
  readonly minReadyMs: number;
  readonly authInitialMs: number;
  readonly authMaxMs: number;
  readonly #random: () => number;
  #failures = 0;
  #authFailures = 0;

  constructor(options: ReconnectPolicyOptions = {}) {
    this.initialMs = ms("initialMs", options.initialMs);
    this.maxMs = ms("maxMs", options.maxMs);
    if (this.maxMs < this.initialMs) throw new InvalidArgumentError("reconnect.maxMs must be >= initialMs");
    this.healthyMaxMs = Math.min(this.maxMs, Math.max(this.initialMs, ms("healthyMaxMs", options.healthyMaxMs)));
    this.lostReadyJitterMs = ms("lostReadyJitterMs", options.lostReadyJitterMs, true);
    this.minReadyMs = ms("minReadyMs", options.minReadyMs, true);
    this.authInitialMs = ms("authInitialMs", options.authInitialMs);
    this.authMaxMs = Math.max(this.authInitialMs, ms("authMaxMs", options.authMaxMs));
    if (options.random !== undefined && typeof options.random !== "function") {
      throw new InvalidArgumentError("reconnect.random must be a function returning a number in [0, 1]");
    }
    this.#random = options.random ?? Math.random;
  }

  /** Failed attempts since the last ready connection. */
  get failures(): number {
    return this.#failures;
  }

  /** Refused auths since the last accepted one. */
  get authFailures(): number {
    return this.#authFailures;
  }

  /**
   * A connection became ready (auth accepted, every topic subscribed). The auth backoff starts over;
   * the failure count starts over when this connection ends after `minReadyMs` (see `next`), so a
   * gateway that drops every connection right after acknowledging it still meets growing delays.
   */
  onReady(): void {
    this.#authFailures = 0;
  }

  /** Classify how a connection ended; `readyForMs` is undefined when it never became ready. */
  classify(readyForMs: number | undefined, authRefused: boolean): ConnectionEnd {
    if (authRefused) return "auth_failed";
    return readyForMs !== undefined && readyForMs >= this.minReadyMs ? "lost_ready" : "failed";
  }

  /** The wait before the next attempt, given how the last connection ended and whether REST answers. */
  next(end: ConnectionEnd, restHealthy: boolean): ReconnectDelay {
    if (end === "lost_ready") {
      this.#failures = 0;
      return {
        delayMs: fullJitterDelay(0, this.lostReadyJitterMs, this.lostReadyJitterMs, this.#random),
        ceilingMs: this.lostReadyJitterMs,
      };
    }
    const n = this.#failures;
    this.#failures = Math.min(this.#failures + 1, 61);
    if (end === "auth_failed") {
      const m = this.#authFailures;
      this.#authFailures = Math.min(this.#authFailures + 1, 61);
      const ceilingMs = backoffCeiling(m, this.authInitialMs, this.authMaxMs);
      return { delayMs: fullJitterDelay(m, this.authInitialMs, this.authMaxMs, this.#random), ceilingMs };
    }
    const cap = restHealthy ? this.healthyMaxMs : this.maxMs;
    return { delayMs: fullJitterDelay(n, this.initialMs, cap, this.#random), ceilingMs: backoffCeiling(n, this.initialMs, cap) };
  }
}
