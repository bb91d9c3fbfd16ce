/**
 * Shared pieces of the reliability tests (test/integration/reliability.*.test.ts): the venue's view
 * of every claim request (faulted ones included), readiness reasons, concurrency of claims at the
 * venue, a journal consistency check against the venue's record, and real disk faults (a tiny
 * tmpfs, a read-only mount). Builds on daemonHarness.ts; not a test file itself.
 */
import { spawnSync } from "node:child_process";
import { mkdir, open, statfs, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { ClaimLogEntry } from "../../src/sim/claimLog.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, journalText } from "./daemonHarness.js";

/**
 * Every POST /v1/liquidation the venue received over REST: from `sim.accountId`, or refused before
 * its signer was known (an injected fault answers before the signature check, so the claim log has
 * no account for it). Only one daemon talks to the venue in these tests, so both are ours.
 */
export function venueClaimRequests(sim: SimulatorHandle): ClaimLogEntry[] {
  return sim.core.claimRequests().filter((e) => e.source === "rest" && (e.accountId === sim.accountId || e.accountId === undefined));
}

/** Requests per liquidation id (requests without a readable id are left out). */
export function requestsPerId(entries: readonly ClaimLogEntry[]): Map<number, ClaimLogEntry[]> {
  const out = new Map<number, ClaimLogEntry[]>();
  for (const e of entries) {
    if (e.liquidationId === undefined) continue;
    const list = out.get(e.liquidationId);
    if (list === undefined) out.set(e.liquidationId, [e]);
    else list.push(e);
  }
  return out;
}

/**
 * "Never claimed twice", precisely: per id, at most one request applied, nothing sent after it, and
 * every earlier request answered with a code that says it was not applied and may be sent again
 * (docs/protocol.md §3: -1003 rate limited, -1011 not processed, -1012 another claim in process,
 * -1203 refused by its limit price). A second request for an id after such an answer is the
 * claimer's legitimate retry; after a success, a lost answer or any other refusal it is a bug.
 * Returns the problems found (empty: the history is sound).
 */
export function resendProblems(entries: readonly ClaimLogEntry[]): string[] {
  const problems: string[] = [];
  for (const [id, list] of requestsPerId(entries)) {
    const codes = [...list].sort((a, b) => a.seq - b.seq).map((e) => e.code);
    const applied = codes.filter((c) => c === 0).length;
    if (applied > 1) problems.push(`${id}: applied ${applied} times (${codes.join(", ")})`);
    const early = codes.slice(0, -1).filter((c) => !RESENDABLE.has(c));
    if (early.length > 0) problems.push(`${id}: sent again after ${early.join(", ")} (${codes.join(", ")})`);
  }
  return problems;
}

/** Answers that say a claim was not applied and may be sent again (see resendProblems). */
const RESENDABLE: ReadonlySet<number> = new Set([-1003, -1011, -1012, -1203]);

/** The largest number of [start, end] intervals that overlap at one instant (ends before starts at a tie). */
export function maxOverlap(intervals: readonly { start: number; end: number }[]): number {
  const events: [number, number][] = [];
  for (const i of intervals) events.push([i.start, 1], [i.end, -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, delta] of events) {
    now += delta;
    if (now > max) max = now;
  }
  return max;
}

/** One journal line as found in the file: parsed, or why it is not a record. */
export type RawJournalLine = { ok: true; record: Record<string, unknown> } | { ok: false; text: string };

/** Every line of the journal in file order; a corrupt line is kept as such (parseJournal skips it). */
export function rawJournal(stateDir: string): { lines: RawJournalLine[]; tornTail: boolean } {
  const parts = journalText(stateDir).split("\n");
  const tail = parts.pop() ?? "";
  const lines: RawJournalLine[] = [];
  for (const part of parts) {
    if (part.length === 0) continue;
    try {
      const v = JSON.parse(part) as unknown;
      if (typeof v === "object" && v !== null && !Array.isArray(v)) lines.push({ ok: true, record: v as Record<string, unknown> });
      else lines.push({ ok: false, text: part });
    } catch {
      lines.push({ ok: false, text: part });
    }
  }
  return { lines, tornTail: tail.length > 0 };
}

/**
 * The journal checked against the venue's record; returns the problems found (empty = consistent):
 * - every outcome follows an intent for its id (an outcome never comes first);
 * - no id has two accepted/confirmed outcomes;
 * - every accepted/confirmed outcome is a claim the venue applied for us, with the venue's fills;
 * - every claim the venue applied for us has an intent in the journal (never a claim unjournaled).
 */
export function journalProblems(stateDir: string, sim: SimulatorHandle): string[] {
  const problems: string[] = [];
  const { lines } = rawJournal(stateDir);
  const intents = new Set<number>();
  const settled = new Map<number, Record<string, unknown>>();
  for (const line of lines) {
    if (!line.ok) continue;
    const r = line.record;
    const id = r.id as number;
    if (r.t === "intent") intents.add(id);
    if (r.t !== "outcome") continue;
    if (!intents.has(id)) problems.push(`outcome ${String(r.result)} for ${id} before any intent`);
    if (r.result === "accepted" || r.result === "confirmed") {
      if (settled.has(id)) problems.push(`id ${id} settled twice`);
      settled.set(id, r);
    }
  }
  const venue = new Map<number, ClaimLogEntry[]>();
  for (const c of claimsBy(sim)) {
    if (c.liquidationId === undefined) continue;
    venue.set(c.liquidationId, [...(venue.get(c.liquidationId) ?? []), c]);
  }
  for (const [id, rec] of settled) {
    const applied = venue.get(id);
    if (applied === undefined || applied.length !== 1) {
      problems.push(`journal says ${id} ${String(rec.result)}, the venue applied ${applied?.length ?? 0} claims`);
      continue;
    }
    const fills = ((rec.fills as { symbol: string; qty: number }[] | undefined) ?? []).map((f) => `${f.symbol}:${f.qty}`).sort();
    const transfers = (applied[0] as ClaimLogEntry).transfers.map((t) => `${t.symbol}:${t.positionQty}`).sort();
    if (fills.join() !== transfers.join()) problems.push(`fills of ${id} differ: journal ${fills.join()} venue ${transfers.join()}`);
  }
  for (const id of venue.keys()) if (!intents.has(id)) problems.push(`the venue applied a claim on ${id} with no intent in the journal`);
  return problems;
}

// ---- disk faults ------------------------------------------------------------------------------

function run(cmd: string, args: string[]): { ok: boolean; output: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return { ok: r.status === 0, output: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? r.error.message : ""}` };
}

/**
 * Mounts a tmpfs of `sizeBytes` on `dir` (created if needed). Needs CAP_SYS_ADMIN (root in the test
 * container); returns the reason when it cannot, so a test can say why it was skipped.
 */
export async function mountTmpfs(dir: string, sizeBytes: number, readOnly = false): Promise<{ ok: true } | { ok: false; reason: string }> {
  await mkdir(dir, { recursive: true });
  const r = run("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes}${readOnly ? ",ro" : ""}`, "tmpfs", dir]);
  return r.ok ? { ok: true } : { ok: false, reason: `mount -t tmpfs failed: ${r.output.trim()}` };
}

/** Remounts a mounted tmpfs read-only or read-write. */
export function remount(dir: string, readOnly: boolean): void {
  const r = run("mount", ["-o", `remount,${readOnly ? "ro" : "rw"}`, dir]);
  if (!r.ok) throw new Error(`remount ${dir} failed: ${r.output}`);
}

/** Unmounts (lazily, so an open file in a crashed test cannot keep it busy); never throws. */
export function unmount(dir: string): void {
  run("umount", ["-l", dir]);
}

/** Fills the file system holding `dir` with one file until a write fails (ENOSPC); returns its path. */
export async function fillDisk(dir: string): Promise<string> {
  const path = join(dir, "filler.bin");
  const handle = await open(path, "w");
  const chunk = Buffer.alloc(4096, 0x5a);
  try {
    for (;;) {
      const s = await statfs(dir);
      if (s.bavail === 0) break;
      const { bytesWritten } = await handle.write(chunk);
      if (bytesWritten < chunk.length) break;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    await handle.close();
  }
  return path;
}

export async function freeDisk(filler: string): Promise<void> {
  await unlink(filler);
}

/**
 * Sets the soft RLIMIT_FSIZE of a running process (`prlimit`, util-linux); "unlimited" lifts it back
 * to the hard limit. Only the soft limit: raising a hard limit needs CAP_SYS_RESOURCE.
 */
export function setFileSizeLimit(pid: number, bytes: number | "unlimited"): { ok: true } | { ok: false; reason: string } {
  const r = run("prlimit", ["--pid", String(pid), `--fsize=${bytes}:`]);
  return r.ok ? { ok: true } : { ok: false, reason: `prlimit failed: ${r.output.trim()}` };
}
