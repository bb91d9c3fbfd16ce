/**
 * Reading the Prometheus text exposition format (what `/metrics` serves), for the soak, the bench and
 * the tests: one parser for `name{label="v",...} value` lines; comments skipped except `# TYPE`,
 * which says which families a histogram or summary offers before any of its series exists.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    out.push({ name: m[1] as string, labels: parseLabels(m[2] ?? ""), value: parseValue(m[3] as string) });
  }
  return out;
}

/** `a="x",b="y"` → `{a: "x", b: "y"}` (escapes undone). */
function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const l of text.matchAll(LABEL)) labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, "$1");
  return labels;
}

function parseValue(v: string): number {
  if (v === "+Inf") return Number.POSITIVE_INFINITY;
  if (v === "-Inf") return Number.NEGATIVE_INFINITY;
  return Number(v);
}

/**
 * The value of `name`: the sum of its samples carrying every pair of `labels`. With no such sample,
 * 0 when the exposition declares `name` a counter (a label set never incremented is a count of zero)
 * and NaN otherwise: a misspelt name or a gauge never set then fails any comparison rather than
 * passing for 0. The one reading of a value for the bench and the tests.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const sum = sampleValue(text, name, labels);
  if (sum !== undefined) return sum;
  return text.split("\n").includes(`# TYPE ${name} counter`) ? 0 : Number.NaN;
}

/** Sum of the samples of `name` carrying every pair of `labels`; undefined when there is none (no such series). */
function sampleValue(samples: string | readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const s of typeof samples === "string" ? parsePrometheus(samples) : samples) {
    if (s.name !== name || !Object.entries(labels).every(([k, v]) => s.labels[k] === v)) continue;
    sum = (sum ?? 0) + s.value;
  }
  return sum;
}

/** Names with at least one sample line (a series). */
function seriesNames(text: string): Set<string> {
  return new Set(parsePrometheus(text).map((s) => s.name));
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { sampleValue as sampleValueForTests, seriesNames as seriesNamesForTests };
