/**
 * The file journal's folder: `claims.jsonl` (the tail being written), `history/claims-<day>-<gen>.jsonl`
 * (closed segments, never rewritten: `liquidator pnl` reads them), and `claims.snapshot.json` (every
 * segment up to `through` folded into the trading core's state, core/coreFold.ts). Start-up reads the
 * snapshot, the segments newer than it and the tail: bounded by what is still open plus one segment
 * or two, not by history.
 *
 * Crash safety: a segment is made by one rename of the tail; a snapshot is written to a temp file,
 * fsynced, renamed over the old one, and the folder fsynced. A kill at any step leaves the old
 * snapshot with the segments it did not cover (replayed again, from the segment, at the next start)
 * or the new one: the claimed ids are in one or the other, never in neither.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { CoreFold } from "../core/coreFold.js";
import { type CoreSnapshot, fromSnapshot, toSnapshot } from "../core/coreSnapshot.js";
import { JOURNAL_VERSION, parseRecord } from "../core/journalRecords.js";
import { utcDay } from "../engine/utcDay.js";
import { ConfigError } from "../errors.js";
import { emptyReplay, type JournalReplay, replayRecord } from "./journalReplay.js";
import { scanLines, scanLinesSync } from "./scanLines.js";

export const JOURNAL_FILE = "claims.jsonl";
export const SNAPSHOT_FILE = "claims.snapshot.json";
export const HISTORY_DIR = "history";
const SEGMENT = /^claims-(\d{4}-\d{2}-\d{2})-(\d{8})\.jsonl$/;

export interface Segment {
  gen: number;
  path: string;
  /** The UTC day it began (a segment ends at the latest when its day does). */
  day: string;
}

export function segmentPath(dir: string, gen: number, startedAt: number): string {
  return join(dir, HISTORY_DIR, `claims-${utcDay(startedAt)}-${String(gen).padStart(8, "0")}.jsonl`);
}

/** History segments, oldest first. */
export function listSegments(dir: string): Segment[] {
  const history = join(dir, HISTORY_DIR);
  if (!existsSync(history)) return [];
  const out: Segment[] = [];
  for (const f of readdirSync(history)) {
    const m = SEGMENT.exec(f);
    if (m !== null) out.push({ gen: Number(m[2]), path: join(history, f), day: m[1] as string });
  }
  return out.sort((a, b) => a.gen - b.gen);
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Refuse a journal a newer build wrote: its format may hold what this build cannot replay. */
export function checkVersion(dir: string, version: number | undefined): void {
  if ((version ?? 1) <= JOURNAL_VERSION) return;
  throw new ConfigError(
    "state.dir",
    `the claims journal in ${dir} is of format ${version}, written by a newer liquidator; this build reads format ${JOURNAL_VERSION} ` +
      "and older. Run the newer build again (a rollback cannot read its journal), or restore the backup of state.dir taken before the upgrade",
  );
}

export function readSnapshot(dir: string): CoreSnapshot | undefined {
  const path = join(dir, SNAPSHOT_FILE);
  if (!existsSync(path)) return undefined;
  const s = JSON.parse(readFileSync(path, "utf8")) as CoreSnapshot;
  checkVersion(dir, s.version);
  // Format 3 holds the core's state (`claims`), format 2 the open records (`open`).
  if (s.t !== "snapshot" || !Array.isArray(s.done) || !(Array.isArray(s.claims) || Array.isArray(s.open)))
    throw new Error(`${path} is not a journal snapshot`);
  return s;
}

/** Temp file, fsync, rename, fsync the folder: a kill leaves the old snapshot or the new one. */
export function writeSnapshot(dir: string, snapshot: CoreSnapshot, step?: (name: "temp" | "renamed") => void): void {
  const path = join(dir, SNAPSHOT_FILE);
  const temp = `${path}.tmp`;
  const fd = openSync(temp, "w");
  try {
    const text = JSON.stringify(snapshot);
    for (let off = 0, buf = Buffer.from(text); off < buf.length; ) off += writeSync(fd, buf, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  step?.("temp");
  renameSync(temp, path);
  step?.("renamed");
  fsyncDir(dir);
}

/** A temp snapshot a killed compaction left behind: never read, removed at the next open. */
export function removeStaleTemp(dir: string): void {
  const temp = join(dir, `${SNAPSHOT_FILE}.tmp`);
  if (existsSync(temp)) unlinkSync(temp);
}

/** The format declared in the first lines of a file (its header), without reading the rest. */
export function headerVersion(path: string): number {
  if (!existsSync(path)) return 1;
  const fd = openSync(path, "r");
  const buf = Buffer.alloc(16_384);
  const n = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  let version = 1;
  for (const line of buf.toString("utf8", 0, n).split("\n").slice(0, 3)) {
    const rec = parseRecord(line);
    if (rec?.t === "venue") version = Math.max(version, rec.version ?? 1);
  }
  return version;
}

/**
 * A line of the opportunity ledger (`seen`, `skip`, `gone`: most of a busy day's lines), told by its
 * first bytes as this build writes them. The core's fold ignores them, so a start need not parse
 * them; a line written otherwise is parsed and ignored all the same.
 */
export function opportunityLine(line: string): boolean {
  return line.startsWith('{"t":"seen"') || line.startsWith('{"t":"skip"') || line.startsWith('{"t":"gone"');
}

/** Folds the segments newer than `folder.through` into it; counts lines that were not records. */
export function foldSegmentsSync(folder: CoreFold, dir: string): { folded: number; corrupt: number } {
  let corrupt = 0;
  let folded = 0;
  for (const seg of listSegments(dir)) {
    if (seg.gen <= folder.through) continue;
    scanLinesSync(seg.path, (line) => {
      if (opportunityLine(line)) return;
      const rec = parseRecord(line);
      if (rec === undefined) corrupt++;
      else folder.add(rec);
    });
    checkVersion(dir, folder.version);
    folder.through = seg.gen;
    folded++;
  }
  return { folded, corrupt };
}

/**
 * Folds every segment the snapshot does not cover yet into a new snapshot, reading in chunks and
 * yielding between them (it runs while the daemon claims). `step` lets a test stop it at each stage.
 */
export async function compact(dir: string, now: number, step?: (name: "folded" | "temp" | "renamed") => void): Promise<number> {
  const snapshot = readSnapshot(dir);
  const folder = snapshot === undefined ? new CoreFold() : fromSnapshot(snapshot);
  let folded = 0;
  for (const seg of listSegments(dir)) {
    if (seg.gen <= folder.through) continue;
    await scanLines(seg.path, (line) => {
      if (opportunityLine(line)) return;
      const rec = parseRecord(line);
      if (rec !== undefined) folder.add(rec);
    });
    folder.through = seg.gen;
    folded++;
  }
  if (folded === 0) return 0;
  checkVersion(dir, folder.version);
  step?.("folded");
  writeSnapshot(dir, toSnapshot(folder, now), step);
  return folded;
}

/**
 * What a restart folds (snapshot, newer segments, tail), read-only: the store's `replay()`. `core` is
 * the trading core's state; the record maps hold the tail's records as written (tools and tests).
 */
export function readCurrent(dir: string): JournalReplay {
  const snapshot = readSnapshot(dir);
  const folder = snapshot === undefined ? new CoreFold() : fromSnapshot(snapshot);
  foldSegmentsSync(folder, dir);
  const replay = emptyReplay();
  replay.core = folder;
  const tail = join(dir, JOURNAL_FILE);
  if (existsSync(tail))
    replay.tornTail = scanLinesSync(tail, (line) => {
      const rec = parseRecord(line);
      if (rec === undefined) replay.corruptLines++;
      else {
        folder.add(rec);
        replayRecord(replay, rec);
      }
    }).torn;
  replay.venue = folder.venue;
  replay.version = folder.version;
  replay.protection = folder.protection;
  return replay;
}

/**
 * Every record ever written, oldest first (segments, then the tail): for `liquidator pnl` and an
 * import into PostgreSQL, read-only. `core` folds them all with every claim's P&L kept.
 */
export function readHistory(dir: string): JournalReplay {
  const replay = emptyReplay();
  const core = new CoreFold({ keepClosedClaims: true });
  replay.core = core;
  const add = (line: string): void => {
    const rec = parseRecord(line);
    if (rec === undefined) replay.corruptLines++;
    else {
      core.add(rec);
      replayRecord(replay, rec);
    }
  };
  for (const seg of listSegments(dir)) scanLinesSync(seg.path, add);
  const tail = join(dir, JOURNAL_FILE);
  if (existsSync(tail)) replay.tornTail = scanLinesSync(tail, add).torn;
  return replay;
}

export function ensureHistoryDir(dir: string): void {
  const history = join(dir, HISTORY_DIR);
  // Not `recursive`: `dir` exists, and a recursive mkdir on a read-only file system says ENOENT, not
  // EROFS (the reason an operator needs to read on /readyz).
  if (!existsSync(history)) mkdirSync(history);
}
