/**
 * Samples the markouts of every accepted claim (engine/markouts.ts): at each horizon after the
 * assignment, the latest fresh mark of the symbol, journaled as a `markout` record and observed in
 * `liquidator_markout_bps{horizon}`. Off the mark path: one timer per assigned symbol, re-armed for
 * its next horizon, reads the mark book when it fires; a mark update costs nothing here.
 *
 * Restart and takeover (`resume`): the journal says which horizons were recorded. A horizon still in
 * the future is sampled when due; one that passed while nobody sampled is recorded missing (`down`),
 * never filled in with a later mark. Claims are resumed if assigned within the longest horizon, or if
 * they have markouts already (an older journal's claims, with none, are left as they are).
 */

import type { RecentClaim } from "../../core/coreFold.js";
import type { MarkoutRecord } from "../../core/journalRecords.js";
import {
  type Assignment,
  assignmentsOf,
  MARKOUT_DELAYS_MS,
  MARKOUT_HORIZONS,
  type MarkoutHorizon,
  type MarkoutSample,
  type MarkPoint,
  pendingHorizons,
  sampleMarkout,
} from "../../engine/markouts.js";
import type { Fill } from "../../engine/types.js";

export interface MarkoutSamplerOptions {
  marks: { get(symbol: string): MarkPoint | undefined };
  /** How old a mark may be and still count (policy.max_mark_age_ms). */
  maxMarkAgeMs: () => number;
  /** The journal (the state store's append). */
  write: (record: MarkoutRecord) => void;
  observe: (horizon: MarkoutHorizon, bps: number) => void;
  now: () => number;
  /** Delay of each horizon (index-aligned with MARKOUT_HORIZONS); tests shorten them. */
  delaysMs?: readonly number[];
  logger?: { warn(o: object, m: string): void };
}

interface Pending {
  a: Assignment;
  /** Horizons left, in order, with when each is due. */
  left: { horizon: MarkoutHorizon; due: number }[];
  timer: NodeJS.Timeout | undefined;
}

export class MarkoutSampler {
  readonly #o: MarkoutSamplerOptions;
  readonly #delays: readonly number[];
  readonly #pending = new Set<Pending>();
  #stopped = false;

  constructor(options: MarkoutSamplerOptions) {
    this.#o = options;
    this.#delays = options.delaysMs ?? MARKOUT_DELAYS_MS;
  }

  /** Assignments waiting for a horizon (for tests and shutdown logs). */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** A claim was applied at `at`: sample each of its symbols at every horizon. */
  assigned(id: number, fills: readonly Fill[], at: number): void {
    if (this.#stopped) return;
    for (const a of assignmentsOf(id, fills, at)) {
      this.#track(
        a,
        MARKOUT_HORIZONS.map((horizon, h) => ({ horizon, due: at + (this.#delays[h] as number) })),
      );
    }
  }

  /**
   * Continue from a journal (start-up on the file store, election on PostgreSQL): forget what was
   * pending, record the horizons that passed unsampled as missing, and sample the rest when due.
   */
  resume(recent: readonly RecentClaim[]): void {
    this.#clear();
    this.#stopped = false;
    const now = this.#o.now();
    const longest = Math.max(...this.#delays);
    const done = new Map<string, Set<MarkoutHorizon>>();
    for (const c of recent) {
      for (const m of c.markouts) {
        const key = `${m.id} ${m.symbol}`;
        const set = done.get(key) ?? new Set();
        set.add(m.horizon);
        done.set(key, set);
      }
    }
    for (const c of recent) {
      const id = c.id;
      if (c.at + longest < now && c.markouts.length === 0) continue;
      for (const a of assignmentsOf(id, c.fills, c.at)) {
        const left: { horizon: MarkoutHorizon; due: number }[] = [];
        for (const p of pendingHorizons(a, done.get(`${id} ${a.symbol}`) ?? new Set(), now, this.#delays)) {
          if (p.missed) this.#write(a, { horizon: p.horizon, at: now, missing: "down" });
          else left.push({ horizon: p.horizon, due: p.due });
        }
        if (left.length > 0) this.#track(a, left);
      }
    }
  }

  /** Stop sampling (shutdown, or this replica deposed): every timer is cleared; `resume` starts again. */
  stop(): void {
    this.#stopped = true;
    this.#clear();
  }

  #clear(): void {
    for (const p of this.#pending) if (p.timer !== undefined) clearTimeout(p.timer);
    this.#pending.clear();
  }

  #track(a: Assignment, left: { horizon: MarkoutHorizon; due: number }[]): void {
    const p: Pending = { a, left, timer: undefined };
    this.#pending.add(p);
    this.#arm(p);
  }

  #arm(p: Pending): void {
    const next = p.left[0];
    if (next === undefined) {
      this.#pending.delete(p);
      return;
    }
    p.timer = setTimeout(() => this.#fire(p), Math.max(0, next.due - this.#o.now()));
    p.timer.unref();
  }

  #fire(p: Pending): void {
    p.timer = undefined;
    if (!this.#pending.has(p)) return;
    const now = this.#o.now();
    // Every horizon due by now is sampled with the mark held now (a timer that fired late).
    while (p.left.length > 0 && (p.left[0] as { due: number }).due <= now) {
      const { horizon } = p.left.shift() as { horizon: MarkoutHorizon };
      const sample = sampleMarkout(p.a, horizon, now, this.#o.marks.get(p.a.symbol), this.#o.maxMarkAgeMs());
      this.#write(p.a, sample);
      if ("bps" in sample) this.#o.observe(horizon, sample.bps);
    }
    this.#arm(p);
  }

  #write(a: Assignment, s: MarkoutSample): void {
    const base = {
      t: "markout",
      id: a.id,
      symbol: a.symbol,
      horizon: s.horizon,
      at: s.at,
      assignedAt: a.at,
      qty: a.qty,
      price: a.price,
    } as const;
    const record: MarkoutRecord = "bps" in s ? { ...base, mark: s.mark, markAt: s.markAt, bps: s.bps } : { ...base, missing: s.missing };
    try {
      this.#o.write(record);
    } catch (err) {
      // A journal that cannot be written stops claims elsewhere; a markout is not worth a crash.
      this.#o.logger?.warn({ id: a.id, symbol: a.symbol, horizon: s.horizon, err: (err as Error).message }, "markout not journaled");
    }
  }
}
