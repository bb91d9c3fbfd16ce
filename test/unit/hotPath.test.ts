/** The bench's hot-path reading of a CPU profile: only samples under the root count, each function once per sample. */
import { expect, test } from "vitest";
import { hotPathForTests } from "../../src/bench/hotPath.js";

const frame = (functionName: string) => ({ functionName, url: "file:///x/src/a.js", lineNumber: 0 });

test("shares of the root's time: inclusive counts a recursive function once, self goes to the leaf", () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: frame("(root)"), children: [2, 5] },
      { id: 2, callFrame: frame("#onMessage"), children: [3] },
      { id: 3, callFrame: frame("decide"), children: [4] },
      { id: 4, callFrame: frame("decide") },
      { id: 5, callFrame: frame("timer") },
    ],
    samples: [2, 3, 4, 4, 5, 5],
    timeDeltas: [10, 10, 10, 10, 10, 50],
  };
  const r = hotPathForTests(profile);
  expect(r.rootUs).toBe(40);
  expect(r.totalUs).toBe(100);
  const inclusive = Object.fromEntries(r.inclusive.map((s) => [s.name.split(" ")[0], s.share]));
  expect(inclusive).toEqual({ "#onMessage": 1, decide: 0.75, "(root)": 1 });
  const self = Object.fromEntries(r.self.map((s) => [s.name.split(" ")[0], s.share]));
  expect(self).toEqual({ "#onMessage": 0.25, decide: 0.75 });
});
