/**
 * The constructors every metric family file uses: each metric in the given registry under the
 * daemon's prefix, and help texts that list a label's values from the same `as const` array the
 * code sets them from, so a help text cannot drift from the values it names.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** ~10 µs (a decision) to 10 s (a claim stuck behind a timeout), roughly 1-2.5-5 per decade. */
const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

export interface MetricMakers {
  counter<L extends string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  gauge<L extends string>(name: string, help: string, labelNames?: readonly L[], collect?: (this: Gauge<L>) => void): Gauge<L>;
  /** A histogram on LATENCY_BUCKETS_SECONDS. */
  histogram<L extends string>(name: string, help: string, labelNames?: readonly L[]): Histogram<L>;
}

export function metricMakers(registry: Registry, prefix: string): MetricMakers {
  const reg = { registers: [registry] };
  return {
    counter: <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name: prefix + name, help, labelNames, ...reg }),
    gauge: <L extends string>(name: string, help: string, labelNames: readonly L[] = [], collect?: (this: Gauge<L>) => void) =>
      new Gauge<L>({ name: prefix + name, help, labelNames, ...reg, ...(collect ? { collect } : {}) }),
    histogram: <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Histogram<L>({ name: prefix + name, help, labelNames, buckets: [...LATENCY_BUCKETS_SECONDS], ...reg }),
  };
}

/**
 * What a scrape-time source says, or undefined when there is none or it threw: a scrape must not
 * fail on a source's bug (the families it feeds read undefined as "not known").
 */
export function fromSource<T>(source: (() => T) | undefined): T | undefined {
  if (source === undefined) return undefined;
  try {
    return source();
  } catch {
    return undefined;
  }
}

/** A label's values as help text names them: `a|b|c`. */
export function oneOf(values: readonly string[]): string {
  return values.join("|");
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { LATENCY_BUCKETS_SECONDS as LATENCY_BUCKETS_SECONDS_FOR_TESTS };
