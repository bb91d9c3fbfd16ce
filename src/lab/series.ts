/**
 * A time series of a replay in bounded memory: points closer than the current gap overwrite the last
 * one; past `maxKept` points every other one goes and the gap doubles. A 3-minute capture keeps
 * 1-second detail, a day of it stays a few thousand points.
 */
export type Point = readonly [t: number, v: number];

export class Series {
  #gapMs: number;
  readonly #maxKept: number;
  #points: [number, number][] = [];

  constructor(gapMs = 1_000, maxKept = 4_000) {
    this.#gapMs = gapMs;
    this.#maxKept = maxKept;
  }

  add(t: number, v: number): void {
    const p = this.#points;
    const last = p[p.length - 1];
    if (last !== undefined && t - last[0] < this.#gapMs) {
      last[1] = v;
      return;
    }
    p.push([t, v]);
    if (p.length > this.#maxKept) {
      this.#points = this.#points.filter((_, i) => i % 2 === 1);
      this.#gapMs *= 2;
    }
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
