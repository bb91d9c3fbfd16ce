/**
 * Seeded pseudo-random numbers for the simulator. The market must be reproducible from `--seed`, so
 * nothing in src/sim draws from Math.random: every random choice goes through one of these.
 */
export class Prng {
  #state: number;

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new RangeError("Prng seed must be a finite number");
    // Fold the seed into 32 bits; a zero state would still work with mulberry32, but mix it anyway.
    this.#state = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  }

  /** mulberry32: uniform in [0, 1). Small, fast and good enough for a market simulation. */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform float in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty array");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next(); // (0, 1]: log(0) is avoided
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exponential waiting time with the given rate (events per unit): gaps of a Poisson process. */
  exponential(rate: number): number {
    return -Math.log(1 - this.next()) / rate;
  }

  /** Log-uniform in [lo, hi): sizes spread over orders of magnitude, as real liquidations are. */
  logUniform(lo: number, hi: number): number {
    return Math.exp(this.uniform(Math.log(lo), Math.log(hi)));
  }

  /** n random bytes as lowercase hex (2n characters). */
  hex(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += this.int(0, 255).toString(16).padStart(2, "0");
    return out;
  }

  /** A new generator whose sequence is independent of this one's future draws. */
  fork(): Prng {
    return new Prng(Math.floor(this.next() * 4294967296));
  }
}
