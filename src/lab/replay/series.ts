/**
 * A time series of a replay in bounded memory: points closer than the current gap share one bucket;
 * past `maxKept` points neighbouring buckets merge and the gap doubles. A 3-minute capture keeps
 * 1-second detail, a day of it stays a few thousand points. A bucket holds the last value (`last`:
 * a curve such as net) or the largest (`max`: an envelope such as exposure, so the chart's peak is
 * the table's peak however far the series was thinned).
 */
export type Point = readonly [t: number, v: number];

export class Series {
  #gapMs: number;
  readonly #maxKept: number;
  readonly #max: boolean;
  #points: [number, number][] = [];

  constructor(gapMs = 1_000, maxKept = 4_000, keep: "last" | "max" = "last") {
    this.#gapMs = gapMs;
    this.#maxKept = maxKept;
    this.#max = keep === "max";
  }

  add(t: number, v: number): void {
    const p = this.#points;
    const last = p[p.length - 1];
    if (last !== undefined && t - last[0] < this.#gapMs) {
      if (!this.#max || v > last[1]) last[1] = v;
      return;
    }
    p.push([t, v]);
    if (p.length > this.#maxKept) {
      const merged: [number, number][] = [];
      for (let i = 0; i < p.length; i += 2) {
        const a = p[i] as [number, number];
        const b = p[i + 1];
        if (b === undefined) merged.push(a);
        else merged.push([a[0], this.#max ? Math.max(a[1], b[1]) : b[1]]);
      }
      this.#points = merged;
      this.#gapMs *= 2;
    }
  }

  /** At most `max` points: evenly picked (the last one always kept), or for an envelope each range's largest. */
  points(max = 600): Point[] {
    const p = this.#points;
    if (p.length <= max) return p.map(([t, v]) => [t, v]);
    const out: Point[] = [];
    const step = (p.length - 1) / (max - 1);
    let from = 0;
    for (let i = 0; i < max; i++) {
      const to = Math.round(i * step);
      const q = p[to] as [number, number];
      let v = q[1];
      if (this.#max) for (let j = from; j < to; j++) v = Math.max(v, (p[j] as [number, number])[1]);
      out.push([q[0], v]);
      from = to + 1;
    }
    return out;
  }
}
