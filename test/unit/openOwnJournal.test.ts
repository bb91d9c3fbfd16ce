/**
 * A journal belongs to one venue and one account (its first record says which): another pair is
 * refused in live mode and moved aside in simulator mode; a journal older than the record is
 * replayed for its ids, with a warning, and adopted.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { JOURNAL_FILE, type Journal } from "../../src/store/fileJournal.js";
import { KEEP_ASIDE, openOwnJournal } from "../../src/store/openOwnJournal.js";

const A = { baseUrl: "https://api.venue-a.example", accountId: "0xaaa", simulated: false };
const dirs: string[] = [];
const open: Journal[] = [];

afterEach(async () => {
  for (const j of open.splice(0)) await j.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function logger() {
  const lines: { level: string; msg: string; obj: object }[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, msg, obj });
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "liq-own-"));
  dirs.push(d);
  return d;
}

function openFor(dir: string, owner: typeof A, log = logger()) {
  const opened = openOwnJournal({ dir, owner, logger: log });
  open.push(opened.journal);
  return opened;
}

const intentLine = (id: number): string =>
  `${JSON.stringify({ t: "intent", id, at: id, ratio: 1, limitPrice: { PERP_ETH_USDC: 1 }, expectedFee: 1, perSymbolQty: { PERP_ETH_USDC: 1 } })}\n`;

describe("openOwnJournal", () => {
  test("a new journal starts with a record naming its venue and account; reopening with the same pair replays it", async () => {
    const dir = tempDir();
    const first = openFor(dir, A);
    first.journal.append({
      t: "intent",
      id: 7,
      at: 1,
      ratio: 1,
      limitPrice: { PERP_ETH_USDC: 1 },
      expectedFee: 1,
      perSymbolQty: { PERP_ETH_USDC: 1 },
    });
    await first.journal.close();
    const [guard, venue] = readFileSync(join(dir, JOURNAL_FILE), "utf8")
      .split("\n")
      .slice(0, 2)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // First a guard a format-1 build refuses (another "venue": exit 78), then the venue itself.
    expect(guard).toMatchObject({ t: "venue", guard: true, version: 2, accountId: A.accountId });
    expect(guard?.baseUrl).not.toBe(A.baseUrl);
    expect(venue).toMatchObject({ t: "venue", baseUrl: A.baseUrl, accountId: A.accountId, version: 2 });
    const again = openFor(dir, A);
    expect([...again.replay.intents.keys()]).toEqual([7]);
    expect(again.replay.venue).toMatchObject({ baseUrl: A.baseUrl, accountId: A.accountId });
  });

  test.each([
    { what: "another account", owner: { ...A, accountId: "0xbbb" } },
    { what: "another venue", owner: { ...A, baseUrl: "https://api.venue-b.example" } },
  ])("live mode refuses a journal of $what, naming both pairs and the path", async ({ owner }) => {
    const dir = tempDir();
    await openFor(dir, A).journal.close();
    const before = readFileSync(join(dir, JOURNAL_FILE), "utf8");
    let err: unknown;
    try {
      openFor(dir, owner);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const part of [A.baseUrl, A.accountId, owner.baseUrl, owner.accountId, join(dir, JOURNAL_FILE)]) expect(message).toContain(part);
    expect((err as ConfigError).key).toBe("state.dir");
    // Untouched: nothing appended to somebody else's journal.
    expect(readFileSync(join(dir, JOURNAL_FILE), "utf8")).toBe(before);
  });

  test("simulator mode: every run is a new venue; the old journal is moved aside and a fresh one begins", () => {
    const dir = tempDir();
    writeFileSync(join(dir, JOURNAL_FILE), intentLine(1001));
    const log = logger();
    const { replay } = openFor(dir, { ...A, simulated: true }, log);
    expect(replay.intents.size).toBe(0);
    const aside = readdirSync(dir).filter((f) => f.startsWith("claims-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, aside[0] as string), "utf8")).toBe(intentLine(1001));
    expect(log.lines.some((l) => l.level === "info" && /fresh claims journal/.test(l.msg))).toBe(true);
  });

  test(`simulator mode keeps the newest ${KEEP_ASIDE} journals set aside`, () => {
    const dir = tempDir();
    for (let i = 0; i < KEEP_ASIDE + 3; i++) writeFileSync(join(dir, `claims-2026010${i}T000000.000Z.jsonl`), intentLine(i));
    writeFileSync(join(dir, JOURNAL_FILE), intentLine(99));
    openFor(dir, { ...A, simulated: true });
    const aside = readdirSync(dir).filter((f) => f.startsWith("claims-"));
    expect(aside).toHaveLength(KEEP_ASIDE);
    expect(aside.some((f) => f.startsWith("claims-20260100"))).toBe(false);
    expect(existsSync(join(dir, JOURNAL_FILE))).toBe(true);
  });

  test("a journal from before venue records is replayed for its ids, with a warning, and adopted", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, JOURNAL_FILE), intentLine(5) + intentLine(6));
    const log = logger();
    const { journal, replay } = openFor(dir, A, log);
    expect([...replay.intents.keys()].sort()).toEqual([5, 6]);
    expect(log.lines.some((l) => l.level === "warn" && /names no venue/.test(l.msg))).toBe(true);
    await journal.close();
    // Adopted: the next start checks it like any other.
    expect(() => openFor(dir, { ...A, accountId: "0xother" })).toThrow(ConfigError);
  });
});
