/**
 * The claim connections, kept warm. Liquidations come after quiet spells, and over the internet a
 * new connection is a TCP and a TLS handshake — more than everything else on the claim path. So
 * claims have connections of their own (two ClaimConnections, one request at a time each, written at once), and each is
 * kept open within the venue's keep-alive hint (`Keep-Alive: timeout=N` on its answers; undici's 4 s
 * default without one): when a lane has been idle for the hint minus a margin, a cheap public read
 * goes out on it so the venue keeps the socket, and a lane the venue closed is re-opened at once by
 * the same read. Warm-ups never hold the lane a claim needs: at most one lane warms at a time, and a
 * claim takes an idle, connected lane first, an idle one next, and only when both are busy with
 * claims a pooled read socket.
 */
import { ClaimConnection } from "./claimConnection.js";
import { keepAliveHintMs } from "./keepAliveHint.js";
import { TextResponse } from "./textResponse.js";
import { USER_AGENT } from "./userAgent.js";

export interface WarmUp {
  /** The request path (with the base path) of a cheap public read; undefined: skip this round. */
  path: () => string | undefined;
  /** Takes the read budget's permit; false: skip this round (the budget is spent on real reads). */
  permit: () => boolean;
}

export interface ClaimLanesOptions {
  origin: string;
  connection: { connectTimeoutMs: number; maxResponseBytes: number };
  /** Lanes (connections) for claims; default 2, so that one can warm while the other waits. */
  count?: number;
  warmUp?: WarmUp;
  /** Idle time assumed without a hint from the venue (undici's default keep-alive). */
  defaultKeepAliveMs?: number;
  /** A lane is warmed this long before the hint runs out. */
  marginMs?: number;
}

export interface LaneSlot {
  readonly client: ClaimConnection;
  busy: boolean;
  warming: boolean;
  keepAliveMs: number;
  timer: NodeJS.Timeout | undefined;
}

export class ClaimLanes {
  readonly #options: Required<Omit<ClaimLanesOptions, "warmUp">> & Pick<ClaimLanesOptions, "warmUp">;
  readonly #lanes: LaneSlot[] = [];
  #closed = false;

  constructor(options: ClaimLanesOptions) {
    this.#options = { count: 2, defaultKeepAliveMs: 4_000, marginMs: 1_000, ...options };
    for (let i = 0; i < this.#options.count; i++) {
      // A connection idle for longer than the venue's hint less 250 ms is re-opened rather than
      // written to (claimConnection.ts): small, since the warm-up refreshes it well before that.
      const client = new ClaimConnection({
        origin: options.origin,
        ...options.connection,
        defaultKeepAliveMs: this.#options.defaultKeepAliveMs,
        staleMarginMs: 250,
      });
      const lane: LaneSlot = { client, busy: false, warming: false, keepAliveMs: this.#options.defaultKeepAliveMs, timer: undefined };
      client.on("disconnect", () => {
        // Closed by the venue (or an error): open it again before a claim needs it.
        this.#schedule(lane, 50);
      });
      this.#lanes.push(lane);
    }
  }

  /** Opens every lane (a warm-up each, one after the other). */
  start(): void {
    this.#lanes.forEach((lane, i) => {
      this.#schedule(lane, 100 * i);
    });
  }

  /** The lane for a claim, marked busy: idle and connected first, then idle; undefined when none is free. */
  take(): { lane: LaneSlot; fresh: boolean } | undefined {
    const lane = this.#lanes.find((l) => !l.busy && !l.warming && l.client.ready) ?? this.#lanes.find((l) => !l.busy && !l.warming);
    if (lane === undefined) return undefined;
    lane.busy = true;
    clearTimeout(lane.timer);
    return { lane, fresh: !lane.client.ready };
  }

  /** A claim's answer came (or it failed): the lane is free, and warmed again before its hint runs out. */
  release(lane: LaneSlot, keepAliveHeader: string | undefined): void {
    lane.busy = false;
    this.#learn(lane, keepAliveHeader);
    this.#schedule(lane);
  }

  async close(): Promise<void> {
    this.#stop();
    await Promise.all(this.#lanes.map((l) => l.client.close()));
  }

  async destroy(): Promise<void> {
    this.#stop();
    await Promise.all(this.#lanes.map((l) => l.client.destroy()));
  }

  #stop(): void {
    this.#closed = true;
    for (const l of this.#lanes) clearTimeout(l.timer);
  }

  #learn(lane: LaneSlot, header: string | undefined): void {
    lane.keepAliveMs = keepAliveHintMs(header) ?? lane.keepAliveMs;
  }

  /** Warm `lane` after `ms` (default: its hint minus the margin) unless it is used before. */
  #schedule(lane: LaneSlot, ms = Math.max(100, lane.keepAliveMs - this.#options.marginMs)): void {
    if (this.#closed || this.#options.warmUp === undefined) return;
    clearTimeout(lane.timer);
    lane.timer = setTimeout(() => this.#warm(lane), ms);
    lane.timer.unref();
  }

  #warm(lane: LaneSlot): void {
    lane.timer = undefined;
    const warmUp = this.#options.warmUp;
    if (this.#closed || warmUp === undefined || lane.busy || lane.warming) return;
    // One lane warms at a time, so a claim always finds the other one free.
    if (this.#lanes.some((l) => l.warming)) return this.#schedule(lane, 100);
    const path = warmUp.path();
    if (path === undefined || !warmUp.permit()) return this.#schedule(lane, 250);
    lane.warming = true;
    const handler = new TextResponse(() => {
      lane.warming = false;
      this.#learn(lane, handler.keepAlive);
      if (!lane.busy) this.#schedule(lane);
    });
    lane.client.dispatch({ path, method: "GET", headers: ["accept", "application/json", "user-agent", USER_AGENT] }, handler);
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { keepAliveHintMs as keepAliveHintMsForTests };
