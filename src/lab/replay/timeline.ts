/**
 * Virtual time of a replay: the clock the daemon's code reads (`now`) and the tasks due later
 * (claim answers landing, unwind slices), run in time order, ties in the order they were scheduled.
 * No timers: the replay advances the clock to each recorded event.
 */
interface Task {
  at: number;
  seq: number;
  run: () => void;
}

export class Timeline {
  #now = 0;
  #seq = 0;
  readonly #heap: Task[] = [];

  get now(): number {
    return this.#now;
  }

  /** Moves the clock forward (never back: captures of several files may overlap by a few ms). */
  setNow(t: number): void {
    if (t > this.#now) this.#now = t;
  }

  at(at: number, run: () => void): void {
    const task: Task = { at, seq: this.#seq++, run };
    const h = this.#heap;
    h.push(task);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!earlier(task, h[p] as Task)) break;
      h[i] = h[p] as Task;
      i = p;
    }
    h[i] = task;
  }

  /** Time of the next task, Infinity when none. */
  nextAt(): number {
    return this.#heap.length === 0 ? Number.POSITIVE_INFINITY : (this.#heap[0] as Task).at;
  }

  /** Runs the next task (the clock moves to its time). */
  runNext(): void {
    const h = this.#heap;
    const top = h[0];
    if (top === undefined) return;
    const last = h.pop() as Task;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && earlier(h[l] as Task, m === i ? last : (h[m] as Task))) m = l;
        if (r < h.length && earlier(h[r] as Task, m === i ? last : (h[m] as Task))) m = r;
        if (m === i) break;
        h[i] = h[m] as Task;
        i = m;
      }
      h[i] = last;
    }
    this.setNow(top.at);
    top.run();
  }
}

function earlier(a: Task, b: Task): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
