/**
 * The daemon's side of a capture: `record` only pushes onto a bounded array and returns. When the
 * array is full the event is dropped and counted, never waited for: a capture must not delay a claim.
 * A batch `batchMs` later (default 25 ms) hands everything queued to the sink, which serialises and
 * compresses (captureFiles.ts). Not `setImmediate`: that runs before the claim a frame triggers has
 * left (the claims limiter's permit resolves in a later turn), and the bench measured the write there
 * as added tick-to-claim latency; 25 ms is past the daemon's tick-to-claim p99.
 */
import type { CaptureEvent, CaptureTap } from "../../daemon/records/captureTap.js";

export interface CaptureSink {
  write(events: readonly CaptureEvent[]): void;
  close(): Promise<void>;
}

export interface CaptureQueueOptions {
  /** Events held before dropping (default 50,000). */
  maxQueued?: number;
  /** Called once per dropped event (a metric). */
  onDrop?: () => void;
  /** Delay of a batch after its first event, ms (default 25; 0 = setImmediate). */
  batchMs?: number;
}

export class CaptureQueue implements CaptureTap {
  readonly #sink: CaptureSink;
  readonly #max: number;
  readonly #onDrop: (() => void) | undefined;
  readonly #batchMs: number;
  #queue: CaptureEvent[] = [];
  #scheduled = false;
  #closed = false;
  #dropped = 0;
  #written = 0;

  constructor(sink: CaptureSink, options: CaptureQueueOptions = {}) {
    this.#sink = sink;
    this.#max = options.maxQueued ?? 50_000;
    this.#onDrop = options.onDrop;
    this.#batchMs = options.batchMs ?? 25;
  }

  /** Events dropped because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Events handed to the sink so far. */
  get written(): number {
    return this.#written;
  }

  record(event: CaptureEvent): void {
    if (this.#closed) return;
    if (this.#queue.length >= this.#max) {
      this.#dropped++;
      this.#onDrop?.();
      return;
    }
    this.#queue.push(event);
    if (!this.#scheduled) {
      this.#scheduled = true;
      if (this.#batchMs === 0) setImmediate(() => this.flush());
      else setTimeout(() => this.flush(), this.#batchMs).unref();
    }
  }

  /** Hands what is queued to the sink (normally from the scheduled batch). */
  flush(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#written += batch.length;
    this.#sink.write(batch);
  }

  async close(): Promise<void> {
    this.flush();
    this.#closed = true;
    await this.#sink.close();
  }
}
