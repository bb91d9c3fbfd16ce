/**
 * Where a daemon's time goes while it handles stream frames: reads a V8 CPU profile (the bench's
 * `--node-args="--cpu-prof --cpu-prof-dir=DIR --cpu-prof-interval=25"`), keeps the samples taken
 * inside the stream's frame handler (`#onMessage`, or `--root NAME`), and prints the functions by
 * share of that time, inclusive and self. Usage: `node dist/bench/hotPath.js FILE.cpuprofile`.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotPathShare {
  name: string;
  share: number;
}

export interface HotPath {
  /** Time inside `root`, and in the whole profile, µs. */
  rootUs: number;
  totalUs: number;
  inclusive: HotPathShare[];
  self: HotPathShare[];
}

function label(n: ProfileNode): string {
  const f = n.callFrame;
  return `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
}

/** The shares of `root`'s time per function (each function counted once per sample, however deep). */
function hotPath(profile: Profile, root = "#onMessage"): HotPath {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  let rootUs = 0;
  let totalUs = 0;
  profile.samples.forEach((sample, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    totalUs += dt;
    const chain: ProfileNode[] = [];
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) chain.push(byId.get(id) as ProfileNode);
    if (!chain.some((n) => n.callFrame.functionName === root)) return;
    rootUs += dt;
    const leaf = label(chain[0] as ProfileNode);
    self.set(leaf, (self.get(leaf) ?? 0) + dt);
    for (const name of new Set(chain.map(label))) inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
  });
  const shares = (m: Map<string, number>): HotPathShare[] =>
    [...m].map(([name, us]) => ({ name, share: rootUs > 0 ? us / rootUs : 0 })).sort((a, b) => b.share - a.share);
  return { rootUs, totalUs, inclusive: shares(inclusive), self: shares(self) };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { root: { type: "string", default: "#onMessage" }, top: { type: "string", default: "30" } },
  });
  const file = positionals[0];
  if (file === undefined) {
    process.stderr.write("usage: node dist/bench/hotPath.js FILE.cpuprofile [--root NAME] [--top N]\n");
    process.exitCode = 64;
    return;
  }
  const r = hotPath(JSON.parse(readFileSync(file, "utf8")) as Profile, values.root);
  const top = Number(values.top);
  const row = (s: HotPathShare): string => `${(100 * s.share).toFixed(1).padStart(6)} %  ${s.name}`;
  process.stdout.write(`inside ${values.root}: ${(r.rootUs / 1000).toFixed(0)} ms of ${(r.totalUs / 1000).toFixed(0)} ms sampled\n`);
  process.stdout.write(
    `\ninclusive\n${r.inclusive.slice(0, top).map(row).join("\n")}\n\nself\n${r.self.slice(0, top).map(row).join("\n")}\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { hotPath as hotPathForTests };
