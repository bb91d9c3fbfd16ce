/**
 * Journal format 1 across one version step (docs/operations.md "Formats and versions"): a journal
 * as release 0.1.0 wrote it (fixtures/claims-0.1.0.jsonl, itself holding records of the builds before
 * it: a `positions` record, intents without `open`, an unwind order without margin mode or sequence,
 * the venue record appended when an older journal was adopted) is read whole by this build: no line
 * dropped as corrupt, every id it claimed never claimed again, its P&L and the positions it still
 * owes as they were.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { JOURNAL_FILE, type Journal } from "../../src/store/fileJournal.js";
import { openOwnJournal } from "../../src/store/openOwnJournal.js";
import { ledgerOf, restoreIds } from "../support/journalRestore.js";

const FIXTURE = join(import.meta.dirname, "fixtures", "claims-0.1.0.jsonl");
const OWNER = { baseUrl: "https://testnet-api.orderly.org", accountId: "0xfixture", simulated: false };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const dirs: string[] = [];
const journals: Journal[] = [];
afterEach(async () => {
  for (const j of journals.splice(0)) await j.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function openFixture() {
  const dir = mkdtempSync(join(tmpdir(), "liq-format-"));
  dirs.push(dir);
  copyFileSync(FIXTURE, join(dir, JOURNAL_FILE));
  const opened = openOwnJournal({ dir, owner: OWNER, logger: quiet });
  journals.push(opened.journal);
  return { dir, ...opened };
}

describe("a journal of release 0.1.0, read by this build", () => {
  test("every line is a record this build understands, in the file it was written to", () => {
    const { dir, journal, replay } = openFixture();
    const lines = readFileSync(FIXTURE, "utf8")
      .split("\n")
      .filter((l) => l.length > 0);
    expect(journal.path).toBe(join(dir, JOURNAL_FILE));
    expect(replay.corruptLines).toBe(0);
    expect(replay.tornTail).toBe(false);
    expect(replay.records).toBe(lines.length);
    expect(replay.venue).toMatchObject({ baseUrl: OWNER.baseUrl, accountId: OWNER.accountId });
  });

  test("the ids it claimed are never claimed again; the unknown ones are settled from the venue's record", () => {
    const { replay } = openFixture();
    const ids = restoreIds(replay);
    expect(ids.blocked).toEqual([900, 1001, 1002, 1003, 1005]);
    // 1003 answered unknown, 1005 killed in flight.
    expect(ids.unknown).toEqual([1003, 1005]);
  });

  test("its P&L and the positions it still owes are what it recorded", () => {
    const { replay } = openFixture();
    const totals = ledgerOf(replay).totals();
    expect(totals.liquidatorFee).toBeCloseTo(30.8 + 39.8, 9);
    expect(totals.fees).toBeCloseTo(1.15 + 0.6, 9);
    expect(totals.trading).toBeCloseTo((3845 - 3850) * 1 + (99300 - 99500) * 0.02, 9);
    const holdings = replay.core?.holdings;
    // BTC: 0.05 claimed, 0.02 unwound by an order of this format; ETH: settled flat by its base.
    expect(holdings?.ours("PERP_BTC_USDC", "CROSS")).toBeCloseTo(0.03, 9);
    expect(holdings?.ours("PERP_ETH_USDC", "CROSS")).toBeCloseTo(0, 9);
  });
});
