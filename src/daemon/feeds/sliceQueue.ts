/**
 * Big inputs in bounded slices. A cascade frame of 1,000 liquidations costs tens of ms of decisions;
 * done in one go it holds the event loop (socket reads, the claim answers, timers) for all of them.
 * Here every job runs at most `sliceSize` items, and for at most `sliceMs`, at a time and yields to
 * the event loop (setImmediate) between slices: the time bound keeps the loop's delay where it is
 * when an item costs more than it used to (a decision that gained a step), the count bound keeps a
 * slice of cheap items from hogging the loop between two looks at the clock. Jobs run strictly in arrival order (a later delta may remove what an earlier one
 * added), so a small job that arrives while a big one is being sliced waits behind it; a small job
 * on an idle queue runs at once, synchronously: a single-liquidation frame pays nothing.
 *
 * While the queue is busy, `idle()` lets the claims pump wait for the end of the frame, so the first
 * claim of a sliced frame is the best of the whole frame, not of its first slice.
 */

export interface SliceJob<T> {
  readonly items: readonly T[];
  readonly each: (item: T) => void;
  /** Runs after the last item (once, also for an empty job). */
  readonly done?: () => void;
  /** Items per slice for this job (cheap items may take bigger slices); default the queue's. */
  readonly size?: number;
}

/** What Ingest needs of a slice queue. */
export interface Slicer {
  run<T>(job: SliceJob<T>): void;
}

/** Every job at once, in the caller's turn: for a replay in virtual time (no event loop to yield to). */
export const inlineSlices: Slicer = {
  run(job) {
    for (const item of job.items) job.each(item);
    job.done?.();
  },
};

interface Running<T> extends SliceJob<T> {
  next: number;
}

export class SliceQueue implements Slicer {
  readonly #sliceSize: number;
  readonly #sliceMs: number;
  readonly #jobs: Running<unknown>[] = [];
  #scheduled = false;
  #waiters: (() => void)[] = [];
  #closed = false;

  readonly #onError: (err: unknown) => void;

  /**
   * `onError`: an item that threw in a later slice (the rest of its job still runs). `sliceMs`: a
   * slice ends after the item that reaches it, whatever its count (at least one item per slice).
   */
  constructor(sliceSize = 100, onError: (err: unknown) => void = () => undefined, sliceMs = 3) {
    if (!Number.isInteger(sliceSize) || sliceSize < 1) throw new RangeError("sliceSize must be a positive integer");
    if (!(sliceMs > 0)) throw new RangeError("sliceMs must be positive");
    this.#sliceSize = sliceSize;
    this.#sliceMs = sliceMs;
    this.#onError = onError;
  }

  /** True while a job waits for its next slice. */
  get busy(): boolean {
    return this.#jobs.length > 0;
  }

  /** Runs `job` now when it fits in one slice and nothing is queued, else slice by slice, in order. */
  run<T>(job: SliceJob<T>): void {
    if (this.#closed) return;
    if (this.#jobs.length === 0 && job.items.length <= (job.size ?? this.#sliceSize)) {
      for (const item of job.items) job.each(item);
      job.done?.();
      return;
    }
    this.#jobs.push({ ...job, next: 0 } as Running<unknown>);
    this.#schedule();
  }

  /** Resolves when no job is queued (at once when idle), or when `signal` aborts. */
  idle(signal?: AbortSignal): Promise<void> {
    if (this.#jobs.length === 0 || signal?.aborted === true) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.#waiters.push(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** Drops queued jobs (shutdown) and releases every waiter. */
  close(): void {
    this.#closed = true;
    this.#jobs.length = 0;
    this.#release();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // The first slice of a new job also waits one turn: the frame that brought it has been counted
    // and the loop gets to read sockets before the decisions start.
    setImmediate(() => this.#slice());
  }

  #slice(): void {
    this.#scheduled = false;
    let budget = this.#jobs[0]?.size ?? this.#sliceSize;
    const until = performance.now() + this.#sliceMs;
    let late = false;
    while (budget > 0 && !late && this.#jobs.length > 0) {
      const job = this.#jobs[0] as Running<unknown>;
      const end = Math.min(job.items.length, job.next + budget);
      let i = job.next;
      while (i < end) {
        const item = job.items[i++];
        this.#guard(() => job.each(item));
        // The clock after every item: an item costs µs, a look at the clock tens of ns.
        if (performance.now() >= until) {
          late = true;
          break;
        }
      }
      budget -= i - job.next;
      job.next = i;
      if (job.next >= job.items.length) {
        this.#jobs.shift();
        if (job.done !== undefined) this.#guard(job.done);
        // A zero-length job takes part of a slice too, so a run of them cannot spin here.
        budget--;
      }
    }
    if (this.#jobs.length > 0) this.#schedule();
    else this.#release();
  }

  /** Nothing above this frame would catch a throw from a setImmediate callback: the process would die. */
  #guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#onError(err);
    }
  }

  #release(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

/**
 * The claims pump's permit, gated on the slices: while a frame is being sliced, the pump waits for
 * its end before taking a permit, and a permit granted while a frame is being sliced is used at the
 * frame's end, so the claim sent on it is the frame's best. A permit used late never brings two
 * claims closer than the venue allows: the transport restamps the claims limiter when each claim
 * is written (restCore.ts, `onClaimWritten`).
 */
export function gatedPermit(slices: SliceQueue, acquire: (signal: AbortSignal) => Promise<void>): (signal: AbortSignal) => Promise<void> {
  const afterPermit = (signal: AbortSignal): Promise<void> => acquire(signal).then(() => (slices.busy ? slices.idle(signal) : undefined));
  return (signal) => (slices.busy ? slices.idle(signal).then(() => afterPermit(signal)) : afterPermit(signal));
}

/** A permit only if one is free now and no frame is being sliced (Claimer.sendNow). */
export function gatedTryPermit(slices: SliceQueue, tryAcquire: () => boolean): () => boolean {
  return () => !slices.busy && tryAcquire();
}
