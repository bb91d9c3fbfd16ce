import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { IntentRecord } from "../../src/core/journalRecords.js";
import { JournalError } from "../../src/errors.js";
import { JOURNAL_FILE, Journal } from "../../src/store/fileJournal.js";
import { parseJournal } from "../../src/store/journalReplay.js";

const intent = (id: number): IntentRecord => ({
  t: "intent",
  id,
  at: 1_700_000_000_000 + id,
  ratio: 0.5,
  limitPrice: { PERP_BTC_USDC: 100_500.1 },
  expectedFee: 12.5,
  perSymbolQty: { PERP_BTC_USDC: 0.25 },
});

function collectingLogger() {
  const lines: { level: string; msg: string; obj: object }[] = [];
  return {
    lines,
    warn: (obj: object, msg: string) => lines.push({ level: "warn", msg, obj }),
    error: (obj: object, msg: string) => lines.push({ level: "error", msg, obj }),
  };
}

describe("Journal", () => {
  test("records survive a reopen: intents, outcomes in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const { journal, replay } = Journal.open({ dir: join(dir, "nested") });
    expect(replay.records).toBe(0);
    journal.append(intent(1));
    journal.append({
      t: "outcome",
      id: 1,
      at: 5,
      result: "accepted",
      fills: [{ symbol: "PERP_BTC_USDC", qty: 0.25, price: 100_000, fee: 150 }],
    });
    journal.append(intent(2));
    journal.append({ t: "outcome", id: 2, at: 6, result: "unknown" });
    journal.append({ t: "outcome", id: 2, at: 7, result: "confirmed" });
    await journal.close();

    const again = Journal.open({ dir: join(dir, "nested") });
    expect(again.replay.records).toBe(5);
    expect([...again.replay.intents.keys()]).toEqual([1, 2]);
    expect(again.replay.outcomes.get(1)?.[0]?.result).toBe("accepted");
    expect(again.replay.outcomes.get(2)?.map((o) => o.result)).toEqual(["unknown", "confirmed"]);
    await again.journal.close();
  });

  test("a torn last line is truncated with a warning and appends continue on a fresh line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const path = join(dir, JOURNAL_FILE);
    writeFileSync(path, `${JSON.stringify(intent(1))}\n${JSON.stringify(intent(2)).slice(0, 25)}`);
    const log = collectingLogger();
    const { journal, replay } = Journal.open({ dir, logger: log });
    expect(replay.tornTail).toBe(true);
    expect([...replay.intents.keys()]).toEqual([1]);
    expect(log.lines.some((l) => l.level === "warn" && l.msg.includes("torn"))).toBe(true);
    journal.append(intent(3));
    await journal.close();
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(parseJournal(readFileSync(path, "utf8")).intents.size).toBe(2);
  });

  test("corrupt lines in the middle are skipped and counted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const path = join(dir, JOURNAL_FILE);
    appendFileSync(path, `${JSON.stringify(intent(1))}\n{"t":"intent","id":"x"}\nnot json\n${JSON.stringify(intent(4))}\n`);
    const log = collectingLogger();
    const { journal, replay } = Journal.open({ dir, logger: log });
    expect(replay.corruptLines).toBe(2);
    expect([...replay.intents.keys()]).toEqual([1, 4]);
    expect(log.lines.some((l) => l.msg.includes("corrupt"))).toBe(true);
    await journal.close();
  });

  test("an unusable state dir is a JournalError", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    expect(() => Journal.open({ dir: file })).toThrow(JournalError);
  });

  test("flush persists and append after close fails loudly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const { journal } = Journal.open({ dir, fsyncIntervalMs: 1_000 });
    journal.append(intent(9));
    await journal.flush();
    expect(journal.size()).toBeGreaterThan(0);
    await journal.close();
    expect(() => journal.append(intent(10))).toThrow(JournalError);
  });
});
