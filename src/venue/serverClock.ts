/**
 * Server time as seen from here. The venue rejects a signed request whose timestamp is more than
 * 300 s from its own clock (docs/protocol.md §2), and every response envelope carries the server's
 * `timestamp`, so we learn the offset from traffic we make anyway instead of trusting the host clock.
 */
export interface ServerClockOptions {
  /** Local wall clock; injectable for tests. */
  now?: () => number;
}

/** The venue's tolerance for signed timestamps (docs/protocol.md §2). */
export const VENUE_CLOCK_TOLERANCE_MS = 300_000;

export class ServerClock {
  readonly #now: () => number;
  #offsetMs = 0;
  #bestRttMs = Number.POSITIVE_INFINITY;
  /** Local time of the sample the offset comes from. */
  #bestAt = 0;
  #lastSampleAt = 0;

  constructor(options: ServerClockOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Milliseconds to add to the local clock to get server time. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /**
   * Local time of the last valid server timestamp seen (whatever its round trip), 0 if none yet:
   * how fresh our knowledge of server time is (housekeeping pauses claiming when it is old).
   */
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
    // Any valid sample shows the venue's clock is being heard (freshness), even one whose round trip
    // is too loose to replace the offset: otherwise a healthy venue answering with slightly slower
    // round trips would look silent and pause claiming. The offset still comes from the tightest.
    if (receivedAt > this.#lastSampleAt) this.#lastSampleAt = receivedAt;
    const stale = receivedAt - this.#bestAt > 60_000;
    if (rtt > this.#bestRttMs && !stale) return;
    this.#bestRttMs = rtt;
    this.#offsetMs = Math.round(serverTimestamp - (sentAt + rtt / 2));
    this.#bestAt = receivedAt;
  }
}
