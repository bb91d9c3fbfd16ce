/**
 * The IPC messages between the bench runner and its venue child process (venueProcess.ts). Every
 * request carries an id; the child answers each with `{id, ok, result}` or `{id, ok: false, error}`.
 * Times measured by the child are `performance.now()` of the child: one clock, the venue's.
 */

export interface VenueStartOptions {
  /** Independent simulated venues ("lanes") in the process, one per client; frames alternate between them. */
  lanes: number;
  seed: number;
  /** The venue's claim limit per account and second (docs/protocol.md §4 says 5; the latency phase raises it). */
  claimsPerSecond: number;
  /** Collateral of the liquidator's account (quote). */
  collateral: number;
  liquidationTtlMs: number;
  /** Traders with positions on each lane (the position-driven market, marks still): what the heatmap polls. */
  population?: boolean;
}

export interface VenueInfo {
  baseUrl: string;
  wsUrl: string;
  /** The private stream's base when it is not `wsUrl` (a simulator started in this process). */
  wsPrivateUrl?: string;
  accountId: string;
  secret: string;
  /** Pid of the venue process (for the record). */
  pid: number;
}

export interface TickOptions {
  /** Frames sent first and not counted (connections, JIT and caches warm up). */
  warmup: number;
  /** Frames measured. */
  count: number;
  /** Pause after each claim's answer before the next frame: base + uniform jitter, ms. */
  gapMs: number;
  gapJitterMs: number;
  /** A frame whose claim does not arrive within this is counted as missed. */
  claimTimeoutMs: number;
  seed: number;
}

/** One TickResult per lane, measured in alternation (lane 0 frame, lane 1 frame, ...). */
export interface TickResult {
  /** Tick-to-claim of each measured frame that was claimed, ms (venue clock, µs resolution). */
  samplesMs: number[];
  /** Measured frames that got no claim within claimTimeoutMs. */
  missed: number;
  /** Measured claims the venue refused (code ≠ 0), by code. */
  refusedByCode: Record<string, number>;
  /** Wall time of the phase, ms. */
  elapsedMs: number;
  /** TCP connections the client opened to its lane during the phase (REST and streams). */
  connectionsOpened: number;
}

export interface CascadeOptions {
  /**
   * Liquidations pushed (in frames of 1,000) this long before the cascade, with a TTL short enough
   * that they expire before it: the daemon's code is then as warm as in a daemon that has been
   * running for a while. 0 disables.
   */
  warmupLiquidations: number;
  warmupLeadMs: number;
  /** Liquidations in total. */
  total: number;
  /** Pushes (frames) they arrive in, evenly spread over spanMs. */
  pushes: number;
  spanMs: number;
  /** Notional range per position (log-uniform), quote. */
  notional: readonly [number, number];
}

export interface CascadeStarted {
  /** When the first and the last push were written (venue clock, ms). */
  firstPushAt: number;
  lastPushAt: number;
  ids: number;
}

export interface CascadeClaim {
  liquidationId: number | undefined;
  /** Venue receive time (performance.now of the venue process), ms. */
  receivedAt: number;
  code: number;
  /** Σ |q| × mark × liquidator_fee of what the claim transferred (0 when refused). */
  value: number;
}

export interface CascadeReport {
  /** Expected fee of every liquidation of the cascade at the mark of its push. */
  fees: { id: number; fee: number; pushedAt: number }[];
  /** Claims received from the liquidator's account, in receive order. */
  claims: CascadeClaim[];
  /** TCP connections the venue accepted since it started (REST and streams). */
  connections: number;
}

export type VenueRequest =
  /** Answers VenueInfo[], one per lane. */
  | { id: number; cmd: "start"; options: VenueStartOptions }
  /** Answers TickResult[], one per lane. */
  | { id: number; cmd: "tick"; options: TickOptions }
  /** The cascade and its reports are on lane 0. */
  | { id: number; cmd: "cascade"; options: CascadeOptions }
  | { id: number; cmd: "claimCount" }
  | { id: number; cmd: "cascadeReport" }
  | { id: number; cmd: "stop" };

export type VenueReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
