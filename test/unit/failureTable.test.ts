/**
 * The failure table (src/venue/failureTable.ts): every row, the row for a code it does not know, and
 * what the callers derive from it (claim action by HTTP status, lookup meaning, the journal's
 * "claimable again", the re-decision schedules). And nobody else compares venue codes.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { claimFailureAction, lookupFailureAction, TimeoutError, TransportError, VenueError } from "../../src/venue/errors.js";
import {
  type ClaimFailureAction,
  claimActionAt,
  claimRetryDelay,
  claimRetryOf,
  codeForBareStatus,
  type LookupFailureAction,
  type OrderFailureAction,
  reclaimableAfterRefusal,
  UNKNOWN_CODE,
  UNKNOWN_CODE_TRIES_FOR_TESTS,
  VENUE_CODES,
  venueCodeMeaning,
} from "../../src/venue/failureTable.js";

type Row = [
  code: number,
  status: number,
  claim: ClaimFailureAction,
  order: OrderFailureAction,
  lookup: LookupFailureAction,
  result: string,
  retryRead: boolean,
  reclaimable: boolean,
];

/** The whole table, written out: a change to any row must change this test too. */
const ROWS: Row[] = [
  [-1000, 500, "rejected", "retry", "settle", "error", false, false],
  [-1001, 401, "rejected", "rejected", "settle", "error", false, false],
  [-1002, 401, "rejected", "rejected", "settle", "error", false, false],
  [-1003, 429, "backoff", "backoff", "retry", "error", true, true],
  [-1004, 400, "rejected", "rejected", "settle", "error", false, false],
  [-1005, 400, "rejected", "rejected", "settle", "error", false, false],
  [-1006, 400, "rejected", "rejected", "absent", "error", false, false],
  [-1007, 409, "rejected", "rejected", "settle", "error", false, false],
  [-1011, 400, "retry_transient", "retry", "retry", "error", true, true],
  [-1012, 400, "retry_racing", "retry", "retry", "rejected", false, true],
  [-1101, 400, "reread_account", "halt_symbol", "settle", "rejected", false, true],
  [-1102, 400, "rejected", "rejected", "settle", "error", false, false],
  [-1103, 400, "rejected", "reprice", "settle", "error", false, false],
  [-1104, 400, "rejected", "reread_positions", "settle", "error", false, false],
  [-1105, 400, "rejected", "reprice", "settle", "error", false, false],
  [-1106, 400, "rejected", "reread_positions", "settle", "error", false, false],
  // Claimable after: a -1201 naming the ratio the venue wants is decided once more (engine/leastRatio.ts).
  [-1201, 400, "rejected", "rejected", "settle", "rejected", false, true],
  [-1202, 400, "gone", "rejected", "settle", "rejected", false, false],
  [-1203, 400, "reevaluate", "reprice", "settle", "rejected", false, true],
];

const venue = (code: number, status = venueCodeMeaning(code).status): VenueError =>
  new VenueError({ venueCode: code, status, venueMessage: "x", endpoint: "/v1/x" });

describe("the failure table", () => {
  test("lists exactly the codes of docs/protocol.md §3 (and -1102..-1106 of §6)", () => {
    expect([...VENUE_CODES.keys()].sort((a, b) => b - a)).toEqual(ROWS.map((r) => r[0]));
  });

  test.each(ROWS)("%i", (code, status, claim, order, lookup, result, retryRead, reclaimable) => {
    const m = venueCodeMeaning(code);
    expect({ status: m.status, claim: m.claim, order: m.order, lookup: m.lookup, result: m.result, retryRead: m.retryRead }).toEqual({
      status,
      claim,
      order,
      lookup,
      result,
      retryRead,
    });
    expect(reclaimableAfterRefusal(code)).toBe(reclaimable);
    expect(m.retry).toEqual(claimRetryOf(claim));
  });

  test("the unknown row: a claim is re-decided (bounded), an order retried later, a lookup settled by the list, an error", () => {
    for (const code of [-1777, 0, 42, -2000]) expect(venueCodeMeaning(code)).toBe(UNKNOWN_CODE);
    expect(UNKNOWN_CODE).toMatchObject({
      kind: "unmapped",
      claim: "redecide",
      order: "rejected",
      lookup: "settle",
      result: "error",
      retryRead: false,
    });
    expect(UNKNOWN_CODE.retry?.tries).toBe(UNKNOWN_CODE_TRIES_FOR_TESTS);
    expect(Number.isFinite(UNKNOWN_CODE_TRIES_FOR_TESTS)).toBe(true);
    // The claimer re-claims it: the journal must let it.
    expect(reclaimableAfterRefusal(-1777)).toBe(true);
    expect(claimFailureAction(venue(-1777, 400))).toBe("redecide");
  });

  test("a request that never left keeps its id claimable", () => {
    expect(reclaimableAfterRefusal(undefined)).toBe(true);
  });

  test("a 5xx on a claim is unknown unless the row says 'not processed'", () => {
    expect(claimActionAt(UNKNOWN_CODE, 502)).toBe("unknown");
    expect(claimActionAt(venueCodeMeaning(-1000), 500)).toBe("unknown");
    expect(claimActionAt(venueCodeMeaning(-1011), 503)).toBe("retry_transient");
    expect(claimFailureAction(venue(-1777, 500))).toBe("unknown");
  });

  test("lookups: not found is absent, transient is asked again, -1000/500 and unknown codes are settled by the list", () => {
    expect(lookupFailureAction(venue(-1006))).toBe("absent");
    expect(lookupFailureAction(venue(-1003))).toBe("retry");
    expect(lookupFailureAction(venue(-1000, 500))).toBe("settle");
    expect(lookupFailureAction(venue(-1777, 400))).toBe("settle");
    expect(lookupFailureAction(new TransportError("reset", true))).toBe("retry");
    expect(lookupFailureAction(new TimeoutError("slow"))).toBe("retry");
    expect(lookupFailureAction(new Error("unreadable"))).toBe("settle");
  });

  test("an error page without an envelope stands for rate limited (429) or unknown error", () => {
    expect(codeForBareStatus(429)).toBe(-1003);
    expect(codeForBareStatus(502)).toBe(-1000);
  });

  test("re-decision schedules: delays per attempt, then spent", () => {
    const bases = { retryMs: 500, repriceMs: 2_000 };
    const delays = (action: ClaimFailureAction, n: number) => {
      const s = claimRetryOf(action);
      return s === undefined ? [] : Array.from({ length: n }, (_, i) => claimRetryDelay(s, i, bases));
    };
    expect(delays("retry_racing", 2)).toEqual([500, undefined]);
    expect(delays("retry_transient", 5)).toEqual([500, 1_000, 2_000, 4_000, undefined]);
    expect(delays("reevaluate", 7)).toEqual([0, 2_000, 4_000, 8_000, 16_000, 16_000, 16_000]);
    expect(delays("redecide", UNKNOWN_CODE_TRIES_FOR_TESTS + 1)).toEqual([0, 2_000, 4_000, 8_000, 16_000, 16_000, undefined]);
    expect(delays("backoff", 3)).toEqual([0, 0, 0]);
    // -1101: back in the queue at once (claims wait for the account re-read), three times in all.
    expect(delays("reread_account", 4)).toEqual([0, 0, 0, undefined]);
    for (const action of ["gone", "rejected", "unknown"] as const) expect(claimRetryOf(action)).toBeUndefined();
  });
});

describe("nobody else compares venue codes", () => {
  const SRC = join(import.meta.dirname, "../../src");
  /** The simulator is the venue: answering codes is its job. The table is the one place that reads them. */
  const ALLOWED = [/^sim\//, /^venue\/failureTable\.ts$/, /^soak\//];
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
    });

  test("no literal venue code in code outside the table (comments aside)", () => {
    const offenders: string[] = [];
    for (const file of files(SRC)) {
      const rel = relative(SRC, file);
      if (ALLOWED.some((re) => re.test(rel))) continue;
      const code = readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
      for (const m of code.matchAll(/-1[0-2]\d\d\b/g)) offenders.push(`${rel}: ${m[0]}`);
    }
    expect(offenders).toEqual([]);
  });
});
