/**
 * The shadow variants' families (docs/policy-lab.md "Shadows"): claims and net of each variant, and
 * what the shadows cost. Read at scrape time from the shadow feed: the replay never touches a label
 * map. `variant` comes from the config's `shadow.variants` names (bounded by the config); a variant
 * removed by a reload loses its series.
 */
import { Counter, Gauge, type Registry } from "prom-client";

export interface ShadowSample {
  variant: string;
  claims: number;
  net: number;
}

export interface ShadowMetrics {
  /** Events dropped because the shadows' queue was full. */
  readonly dropped: Counter;
  setSource(source: (() => { scores: Iterable<ShadowSample>; cpuSeconds: number; events: number; queued: number }) | undefined): void;
}

export function createShadowMetrics(registry: Registry, prefix: string): ShadowMetrics {
  const reg = { registers: [registry] };
  let source: (() => { scores: Iterable<ShadowSample>; cpuSeconds: number; events: number; queued: number }) | undefined;
  let last: { scores: ShadowSample[]; cpuSeconds: number; events: number; queued: number } | undefined;
  // One read feeds every family; each collect rereads it (a scrape reads them one after the other).
  const sample = (): typeof last => {
    if (source === undefined) return undefined;
    try {
      const s = source();
      last = { ...s, scores: [...s.scores] };
    } catch {
      // A broken source leaves the families at their last values instead of failing the scrape.
    }
    return last;
  };
  /** A family's `collect`: set from a fresh sample at scrape time (no source yet: left as it is). */
  const from = <M extends { reset(): void }>(write: (m: M, s: NonNullable<typeof last>) => void) =>
    function (this: M): void {
      const s = sample();
      if (s === undefined) return;
      this.reset();
      write(this, s);
    };
  new Counter({
    name: `${prefix}shadow_claims_total`,
    help: "Claims each shadow variant (shadow.variants) would have won on the live feed (none is sent)",
    labelNames: ["variant"],
    ...reg,
    collect: from<Counter>((m, s) => {
      for (const v of s.scores) m.inc({ variant: v.variant }, v.claims);
    }),
  });
  new Gauge({
    name: `${prefix}shadow_net_quote`,
    help: "Net of each shadow variant on the live feed (quote): fees minus modelled unwind cost, holdings at the mark",
    labelNames: ["variant"],
    ...reg,
    collect: from<Gauge>((m, s) => {
      for (const v of s.scores) m.set({ variant: v.variant }, v.net);
    }),
  });
  new Counter({
    ...reg,
    name: `${prefix}shadow_cpu_seconds_total`,
    help: "CPU time of the shadow variants' replay thread (all variants together)",
    collect: from<Counter>((m, s) => m.inc(s.cpuSeconds)),
  });
  new Counter({
    ...reg,
    name: `${prefix}shadow_events_total`,
    help: "Live events replayed through the shadow variants",
    collect: from<Counter>((m, s) => m.inc(s.events)),
  });
  new Gauge({
    ...reg,
    name: `${prefix}shadow_queued`,
    help: "Live events waiting for the shadow variants' replay",
    collect: from<Gauge>((m, s) => m.set(s.queued)),
  });
  const dropped = new Counter({
    name: `${prefix}shadow_events_dropped_total`,
    help: "Live events the shadows never saw because their queue was full (their scores are then approximate)",
    ...reg,
  });
  dropped.inc(0);
  return {
    dropped,
    setSource: (s) => {
      source = s;
    },
  };
}
