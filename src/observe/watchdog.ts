/**
 * Named loop watchdogs for `/healthz`: each long-running loop registers with the longest gap it may
 * leave between two `kick`s; a loop not kicked within its limit is stale, and a stale loop means the
 * process is wedged (a dead timer, a promise that never settles), which only a restart fixes.
 *
 * The clock is injected so tests (and the server) judge staleness without real waiting.
 */

export interface WatchdogOptions {
  /** Milliseconds; default Date.now. A monotonic source (performance.now) works as well. */
  now?: () => number;
}

export interface LoopAge {
  name: string;
  ageMs: number;
  limitMs: number;
}

interface Entry {
  limitMs: number;
  lastKick: number;
}

export class Watchdog {
  readonly #now: () => number;
  readonly #loops = new Map<string, Entry>();

  constructor(options: WatchdogOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Starts watching `name`; registration counts as the first kick. Re-registering resets it. */
  register(name: string, limitMs: number): void {
    if (name === "") throw new RangeError("watchdog loop name must not be empty");
    if (!Number.isFinite(limitMs) || limitMs <= 0) throw new RangeError(`watchdog limit of ${name} must be a positive number of ms`);
    this.#loops.set(name, { limitMs, lastKick: this.#now() });
  }

  /** A loop that ended on purpose (shutdown) stops being watched. */
  unregister(name: string): void {
    this.#loops.delete(name);
  }

  /** The loop made progress. An unregistered name is a programming error and throws. */
  kick(name: string): void {
    const entry = this.#loops.get(name);
    if (entry === undefined) throw new RangeError(`watchdog loop ${name} is not registered`);
    entry.lastKick = this.#now();
  }

  /** Names of the loops not kicked within their limit at `now` (sorted, empty when all alive). */
  stale(now: number = this.#now()): string[] {
    const out: string[] = [];
    for (const [name, e] of this.#loops) if (now - e.lastKick > e.limitMs) out.push(name);
    return out.sort();
  }

  ages(now: number = this.#now()): LoopAge[] {
    return [...this.#loops].map(([name, e]) => ({ name, ageMs: Math.max(0, now - e.lastKick), limitMs: e.limitMs }));
  }

  /** For `metrics.setWatchdogSource(() => watchdog.samples())` (watchdog_age/limit_seconds{loop}). */
  samples(now: number = this.#now()): { loop: string; ageSeconds: number; limitSeconds: number }[] {
    return this.ages(now).map((a) => ({ loop: a.name, ageSeconds: a.ageMs / 1000, limitSeconds: a.limitMs / 1000 }));
  }

  names(): string[] {
    return [...this.#loops.keys()];
  }
}
