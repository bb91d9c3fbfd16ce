/**
 * Keeps the claim path warm between liquidations: every `intervalMs` the pure part of the path runs
 * on the latest liquidation seen — the frame decoded and validated (frameDecoder.ts), mapped, decided,
 * ranked, the body, the journal line, the signature and the request text built (Claimer.rehearse) —
 * and nothing is sent, journaled, reserved or counted.
 *
 * Why: liquidations come after quiet spells, and after milliseconds of quiet the path's code and data
 * have left the CPU's caches (on a shared or virtualised host most of all). The bench measured the
 * daemon's tick-to-claim at ~1.14× a bare client's with the path cold, and ~1.0× with this running
 * (docs/performance.md); it is the trading-systems practice of running the hot path on dummy orders
 * that are never sent. Cost: a timer wake-up and one rehearsal (a signature is most of it) per
 * interval, ~5 % of a core at 2 ms on the bench machine.
 *
 * The sample is one row with positions of the last liquidation frame, re-serialised here (on the
 * timer, not in the frame's handler) as a one-row frame: a cascade's 1,000-row frame never makes a
 * rehearsal long. Until the stream has pushed one, a liquidation of the REST open list is the sample
 * (sampleOpenList).
 */
import { decodeFrame } from "../../venue/frameDecoder.js";
import { liquidationFromPush, liquidationFromRow } from "../../venue/mapping.js";
import type { OpenLiquidation } from "../../venue/restSchemas.js";
import { type LiquidationEntry, routeTopic, type TopicRoute } from "../../venue/wire.js";
import type { Claimer } from "./claimer.js";

export interface ClaimRehearsalOptions {
  claimer: Pick<Claimer, "rehearse">;
  /** Between two rehearsals, ms; 0: never. */
  intervalMs: number;
  /** Each rehearsal run (a metric). */
  onRun?: () => void;
  /**
   * False while the claim path is at work anyway (claims waiting for permits, a big frame in slices):
   * the rehearsal then leaves the CPU to it. Default: always idle.
   */
  idle?: () => boolean;
  /** Monotonic clock, ms. */
  now?: () => number;
  /** A rehearsal threw (a bug: the path it runs is pure): rehearsals stop, claims go on. */
  onError?: (err: Error) => void;
}

const ROUTES: ReadonlyMap<string, TopicRoute> = new Map([["liquidation", routeTopic("liquidation") as TopicRoute]]);

export class ClaimRehearsal {
  readonly #claimer: Pick<Claimer, "rehearse">;
  readonly #intervalMs: number;
  readonly #onError: ((err: Error) => void) | undefined;
  readonly #onRun: (() => void) | undefined;
  readonly #now: () => number;
  readonly #idle: () => boolean;
  /** When the last real liquidation frame was handled: the path it ran is warm for an interval. */
  #sampledAt = Number.NEGATIVE_INFINITY;
  #row: LiquidationEntry | undefined;
  #ts = 0;
  #frame: Buffer | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: ClaimRehearsalOptions) {
    if (!Number.isInteger(o.intervalMs) || o.intervalMs < 0) throw new RangeError("claim rehearsal interval must be an integer >= 0 ms");
    this.#claimer = o.claimer;
    this.#intervalMs = o.intervalMs;
    this.#onError = o.onError;
    this.#onRun = o.onRun;
    this.#now = o.now ?? (() => performance.now());
    this.#idle = o.idle ?? (() => true);
  }

  /**
   * The rows of a liquidation frame just handled: the first with positions (not a removal) becomes the
   * sample. Only a reference is kept here.
   */
  sample(rows: readonly LiquidationEntry[], ts: number | undefined): void {
    this.#sampledAt = this.#now();
    const row = rows.find((r) => r.positionsByPerp.length > 0);
    if (row === undefined || row === this.#row) return;
    this.#row = row;
    this.#ts = ts ?? 0;
    this.#frame = undefined;
  }

  /**
   * A REST open list: until a push brings a sample, its first liquidation with positions is the
   * sample, in the push's shape. It does not mark the path as just run.
   */
  sampleOpenList(rows: readonly OpenLiquidation[]): void {
    if (this.#row !== undefined) return;
    const row = rows.find((r) => r.positions_by_perp.length > 0);
    if (row === undefined) return;
    const l = liquidationFromRow(row);
    this.#row = { liquidationId: l.liquidationId, timestamp: l.timestamp, type: "liquidated", positionsByPerp: [...l.positions] };
    this.#ts = l.timestamp;
    this.#frame = undefined;
  }

  /** One rehearsal of the sample; the bytes it built (0 without a sample or when the policy skips it). */
  runOnce(): number {
    if (this.#row === undefined) return 0;
    this.#frame ??= Buffer.from(JSON.stringify({ topic: "liquidation", ts: this.#ts, data: [this.#row] }));
    this.#onRun?.();
    const d = decodeFrame(this.#frame, false, ROUTES);
    if (d.kind !== "data" || d.data[0] !== "liquidation") return 0;
    const entry = d.data[1][0];
    return entry === undefined ? 0 : this.#claimer.rehearse(liquidationFromPush(entry));
  }

  start(): void {
    if (this.#intervalMs === 0 || this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      // A real frame within the interval has just run the path: nothing to warm, no CPU taken from it.
      if (this.#now() - this.#sampledAt < this.#intervalMs || !this.#idle()) return;
      try {
        this.runOnce();
      } catch (err) {
        this.stop();
        this.#onError?.(err as Error);
      }
    }, this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
