/**
 * A journal belongs to one venue and one account (its first record says which): in live mode another
 * pair on the same state.dir gets a file of its own, a pair's file naming another pair is refused; in
 * simulator mode the old journal is moved aside; a journal older than the record is replayed for its
 * ids, with a warning, and adopted.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { JOURNAL_VERSION } from "../../src/core/journalRecords.js";
import { ConfigError } from "../../src/errors.js";
import { JOURNAL_FILE, type Journal } from "../../src/store/fileJournal.js";
import { KEEP_ASIDE_FOR_TESTS, openOwnJournal } from "../../src/store/openOwnJournal.js";
import { journalPair, pairJournalNameForTests } from "../../src/store/ownJournalFile.js";

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
    expect(guard).toMatchObject({ t: "venue", guard: true, version: JOURNAL_VERSION, accountId: A.accountId });
    expect(guard?.baseUrl).not.toBe(A.baseUrl);
    expect(venue).toMatchObject({ t: "venue", baseUrl: A.baseUrl, accountId: A.accountId, version: JOURNAL_VERSION });
    const again = openFor(dir, A);
    expect([...again.replay.intents.keys()]).toEqual([7]);
    expect(again.replay.venue).toMatchObject({ baseUrl: A.baseUrl, accountId: A.accountId });
  });

  test.each([
    { what: "another account", owner: { ...A, accountId: "0xbbb" } },
    { what: "another venue", owner: { ...A, baseUrl: "https://api.venue-b.example" } },
  ])(
    "live mode: $what on the same state.dir begins a journal of its own; the first is left alone and stays its pair's",
    async ({ owner }) => {
      const dir = tempDir();
      const first = openFor(dir, A);
      first.journal.append(JSON.parse(intentLine(7)));
      await first.journal.close();
      const before = readFileSync(join(dir, JOURNAL_FILE), "utf8");
      const log = logger();
      const second = openFor(dir, owner, log);
      expect(second.journal.path).toBe(join(dir, pairJournalNameForTests(owner)));
      expect(second.replay.intents.size).toBe(0);
      expect(second.replay.venue).toMatchObject({ baseUrl: owner.baseUrl, accountId: owner.accountId });
      expect(log.lines.some((l) => l.level === "info" && /journal begins in a file of its own/.test(l.msg))).toBe(true);
      second.journal.append(JSON.parse(intentLine(8)));
      await second.journal.close();
      // Untouched: nothing appended to the other pair's journal.
      expect(readFileSync(join(dir, JOURNAL_FILE), "utf8")).toBe(before);
      // Each pair finds its own again, either way round (testnet -> mainnet -> testnet).
      expect([...openFor(dir, A).replay.intents.keys()]).toEqual([7]);
      expect([...openFor(dir, owner).replay.intents.keys()]).toEqual([8]);
    },
  );

  test("a pair's file that names another pair all the same (copied by hand) is refused, naming both pairs, the path and what to do", async () => {
    const dir = tempDir();
    await openFor(dir, A).journal.close();
    const owner = { ...A, accountId: "0xbbb" };
    mkdirSync(dirname(join(dir, pairJournalNameForTests(owner))), { recursive: true });
    renameSync(join(dir, JOURNAL_FILE), join(dir, pairJournalNameForTests(owner)));
    const path = join(dir, pairJournalNameForTests(owner));
    const before = readFileSync(path, "utf8");
    let err: unknown;
    try {
      openFor(dir, owner);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const part of [A.baseUrl, A.accountId, owner.baseUrl, owner.accountId, path, "move", "docs/runbook.md"])
      expect(message).toContain(part);
    expect((err as ConfigError).key).toBe("state.dir");
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  test("pair file names: host and account, safe as a file name, distinct per pair", () => {
    expect(pairJournalNameForTests({ baseUrl: "https://api.orderly.org", accountId: "0xabc" })).toBe(
      "journals/api.orderly.org-0xabc/claims.jsonl",
    );
    expect(pairJournalNameForTests({ baseUrl: "http://127.0.0.1:8080", accountId: "a/../b" })).toBe(
      "journals/127.0.0.1_8080-a_.._b/claims.jsonl",
    );
    expect(pairJournalNameForTests({ baseUrl: "https://testnet-api.orderly.org", accountId: "0xabc" })).not.toBe(
      pairJournalNameForTests({ baseUrl: "https://api.orderly.org", accountId: "0xabc" }),
    );
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

  test(`simulator mode keeps the newest ${KEEP_ASIDE_FOR_TESTS} journals set aside`, () => {
    const dir = tempDir();
    for (let i = 0; i < KEEP_ASIDE_FOR_TESTS + 3; i++) writeFileSync(join(dir, `claims-2026010${i}T000000.000Z.jsonl`), intentLine(i));
    writeFileSync(join(dir, JOURNAL_FILE), intentLine(99));
    openFor(dir, { ...A, simulated: true });
    const aside = readdirSync(dir).filter((f) => f.startsWith("claims-"));
    expect(aside).toHaveLength(KEEP_ASIDE_FOR_TESTS);
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
    // Adopted: it is this pair's now, and another pair gets a file of its own.
    expect(journalPair(join(dir, JOURNAL_FILE))).toEqual({ baseUrl: A.baseUrl, accountId: A.accountId });
    expect(openFor(dir, { ...A, accountId: "0xother" }).journal.path).toBe(
      join(dir, pairJournalNameForTests({ ...A, accountId: "0xother" })),
    );
  });
});
