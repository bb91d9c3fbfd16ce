/**
 * Server time as seen from here. The venue rejects a signed request whose timestamp is more than
 * 300 s from its own clock (PROTOCOL.md §2), and every response envelope carries the server's
 * `timestamp`, so we learn the offset from traffic we make anyway instead of trusting the host clock.
 */
export interface ServerClockOptions {
  /** Local wall clock; injectable for tests. */
  now?: () => number;
}

/** The venue's tolerance for signed timestamps (PROTOCOL.md §2). */
export const VENUE_CLOCK_TOLERANCE_MS = 300_000;

export class ServerClock {
  readonly #now: () => number;
  #offsetMs = 0;
  #bestRttMs = Number.POSITIVE_INFINITY;
  #lastSampleAt = 0;

  constructor(options: ServerClockOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Milliseconds to add to the local clock to get server time. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Local time of the last accepted sample, 0 if none yet. */
  get lastSampleAt(): number {
    return this.#lastSampleAt;
  }

  /** Current server time estimate in ms. */
  now(): number {
    return this.#now() + this.#offsetMs;
  }

  /**
   * Record an envelope timestamp. The server stamped it somewhere between send and receive, so the
   * midpoint is the best guess; a sample with a shorter round trip is more precise, but older samples
   * drift, so a sample is taken when it is tighter than the best one or the best one is over 60 s old.
   */
  observe(serverTimestamp: number, sentAt: number, receivedAt: number): void {
    if (!Number.isFinite(serverTimestamp) || serverTimestamp <= 0 || receivedAt < sentAt) return;
    const rtt = receivedAt - sentAt;
    const stale = receivedAt - this.#lastSampleAt > 60_000;
    if (rtt > this.#bestRttMs && !stale) return;
    this.#bestRttMs = rtt;
    this.#offsetMs = Math.round(serverTimestamp - (sentAt + rtt / 2));
    this.#lastSampleAt = receivedAt;
  }
}
