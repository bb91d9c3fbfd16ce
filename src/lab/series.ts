/** A time series of a replay, bounded: points closer than `gapMs` overwrite the last one. */
export type Point = readonly [t: number, v: number];

export class Series {
  readonly #gapMs: number;
  readonly #points: [number, number][] = [];

  constructor(gapMs = 10_000) {
    this.#gapMs = gapMs;
  }

  add(t: number, v: number): void {
    const last = this.#points.at(-1);
    if (last !== undefined && t - last[0] < this.#gapMs) {
      last[1] = v;
      return;
    }
    this.#points.push([t, v]);
  }

  /** At most `max` points, evenly picked (the last one always kept). */
  points(max = 600): Point[] {
    const p = this.#points;
    if (p.length <= max) return p.map(([t, v]) => [t, v]);
    const out: Point[] = [];
    const step = (p.length - 1) / (max - 1);
    for (let i = 0; i < max; i++) {
      const q = p[Math.round(i * step)] as [number, number];
      out.push([q[0], q[1]]);
    }
    return out;
  }
}
