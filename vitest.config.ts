import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration tests start real servers and child processes; a slow, noisy CI machine needs room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/summaryReporter.ts"],
    // Most integration time is waiting (sockets, timers, child processes), not CPU: four files at
    // once on a 2-core machine cut the wall time about in half without starving any of them.
    maxWorkers: 4,
  },
});
