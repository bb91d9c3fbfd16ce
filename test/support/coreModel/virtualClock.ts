/**
 * Virtual time for the core's model-based tests: the core's and the unwinder's timers run when the
 * test advances the clock, in time order, each followed by the promise turns it started. Timers
 * belong to a process generation: a kill -9 drops the dead process's timers with it.
 */

interface Timer {
  at: number;
  seq: number;
  gen: number;
  f: () => void;
  cancelled: boolean;
}

/** Promise turns after an effect: a few macrotask turns (the database's answers are real I/O). */
export async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class VirtualClock {
  now: number;
  /** The live process's generation (bumped by a kill). */
  gen = 0;
  #timers: Timer[] = [];
  #seq = 0;

  constructor(start: number) {
    this.now = start;
  }

  /** Run `f` after `ms` of virtual time, as the process of the current generation. */
  schedule(ms: number, f: () => void): () => void {
    const t: Timer = { at: this.now + Math.max(0, ms), seq: this.#seq++, gen: this.gen, f, cancelled: false };
    this.#timers.push(t);
    return () => {
      t.cancelled = true;
    };
  }

  /** The dead process's timers never fire. */
  kill(): void {
    this.gen++;
    this.#timers = this.#timers.filter((t) => t.gen === this.gen);
  }

  /** Move time forward by `ms`, firing what falls due in order; `settle` runs after each timer. */
  async advance(ms: number, settle: () => Promise<void>): Promise<void> {
    const end = this.now + ms;
    for (let fired = 0; ; fired++) {
      // A timer that re-arms itself at once would spin here for ever: a bug of the code under test.
      if (fired > 100_000) throw new Error("more than 100,000 timers in one advance: something re-arms itself at once");
      let next: Timer | undefined;
      for (const t of this.#timers)
        if (!t.cancelled && t.at <= end && (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      if (next === undefined) break;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      this.now = Math.max(this.now, next.at);
      next.f();
      await settle();
    }
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    this.now = end;
  }
}
