/**
 * The daemon's side of a capture: `record` only pushes onto a bounded array and returns. When the
 * array is full the event is dropped and counted, never waited for: a capture must not delay a claim.
 * A `setImmediate` batch later hands everything queued to the sink, which serialises and compresses
 * (captureFiles.ts) outside the tick that received the frame.
 */
import type { CaptureEvent, CaptureTap } from "../daemon/captureTap.js";

export interface CaptureSink {
  write(events: readonly CaptureEvent[]): void;
  close(): Promise<void>;
}

export interface CaptureQueueOptions {
  /** Events held before dropping (default 50,000). */
  maxQueued?: number;
  /** Called once per dropped event (a metric). */
  onDrop?: () => void;
}

export class CaptureQueue implements CaptureTap {
  readonly #sink: CaptureSink;
  readonly #max: number;
  readonly #onDrop: (() => void) | undefined;
  #queue: CaptureEvent[] = [];
  #scheduled = false;
  #closed = false;
  #dropped = 0;
  #written = 0;

  constructor(sink: CaptureSink, options: CaptureQueueOptions = {}) {
    this.#sink = sink;
    this.#max = options.maxQueued ?? 50_000;
    this.#onDrop = options.onDrop;
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
      setImmediate(() => this.flush());
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
