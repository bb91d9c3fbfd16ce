/** Stream and loop timing overrides (tests). */
export interface DaemonTiming {
  reconcileIntervalMs?: number;
  pingIntervalMs?: number;
  deadAfterMs?: number;
  backoff?: { initialMs: number; maxMs: number; healthyMaxMs?: number; authInitialMs?: number; authMaxMs?: number };
  /** Server-time samples older than this pause claiming (default 120 s). */
  clockMaxAgeMs?: number;
  /** How often a failed journal is retried (default 10 s). */
  journalRetryMs?: number;
  /** Delays of the markout horizons 1s..300s, ms (default their names; tests shorten them). */
  markoutDelaysMs?: readonly number[];
  /** How often the insurance fund is read (default 30 s, daemon/feeds/fundWatch.ts). */
  fundPollMs?: number;
}
