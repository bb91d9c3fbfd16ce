import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints the plain closing line `N passed, N failed[, N skipped]` after vitest's own report, so CI
 * (and a human scanning a log) reads the outcome from the last line. A module that failed to load
 * counts as one failure: its tests never ran, and a silent zero would read as green. So does a
 * module whose tests all passed but whose hooks (an `afterAll`'s check) failed: the run fails.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of testModules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedHere++;
        else skipped++;
      }
      if (failedHere === 0 && mod.state() === "failed") failedHere++;
      failed += failedHere;
    }
    const tail = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`${passed} passed, ${failed} failed${tail}\n`);
  }
}
