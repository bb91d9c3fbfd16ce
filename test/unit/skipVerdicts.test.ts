import { describe, expect, test } from "vitest";
import { SkipVerdicts } from "../../src/core/skipVerdicts.js";

const MARK = new Set(["mark_stale", "mark_missing"]);

describe("SkipVerdicts", () => {
  test("ids by reason, in the order first skipped; a changed verdict moves the id's count", () => {
    const s = new SkipVerdicts();
    expect(s.set(1, "exposure_cap")).toBe(true);
    expect(s.set(2, "mark_stale")).toBe(true);
    expect(s.set(3, "exposure_cap")).toBe(true);
    expect(s.set(1, "exposure_cap")).toBe(false); // the same verdict again: not a new skip
    expect(s.ids(MARK)).toEqual([2]);
    expect(s.ids(new Set(["exposure_cap"]))).toEqual([1, 3]);
    expect(s.ids()).toEqual([1, 2, 3]);
    expect(s.set(3, "mark_missing")).toBe(true);
    expect(s.ids(MARK)).toEqual([2, 3]);
    expect(s.ids(new Set(["exposure_cap"]))).toEqual([1]);
    s.delete(2);
    s.delete(3);
    s.delete(99); // unknown: nothing
    expect(s.ids(MARK)).toEqual([]);
    expect(s.size).toBe(1);
    expect(s.get(1)).toBe("exposure_cap");
  });

  test("the ids are a copy: re-deciding them while walking changes nothing walked", () => {
    const s = new SkipVerdicts();
    for (let id = 1; id <= 5; id++) s.set(id, "mark_stale");
    const seen: number[] = [];
    for (const id of s.ids(MARK)) {
      seen.push(id);
      s.delete(id);
      s.set(id + 100, "mark_stale");
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(s.ids(MARK)).toEqual([101, 102, 103, 104, 105]);
  });

  test("retain forgets the ids no longer open, with their counts", () => {
    const s = new SkipVerdicts();
    for (let id = 1; id <= 6; id++) s.set(id, id % 2 === 0 ? "mark_stale" : "exposure_cap");
    s.retain((id) => id > 4);
    expect(s.ids()).toEqual([5, 6]);
    expect(s.ids(MARK)).toEqual([6]);
    s.retain(() => false);
    expect(s.size).toBe(0);
    expect(s.ids(MARK)).toEqual([]);
    expect(s.ids()).toEqual([]);
  });
});
