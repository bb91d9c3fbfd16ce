/**
 * The daemon and the key's expiry (docs/protocol.md §8): it refuses to start on an expired key or
 * one without the trading scope (exit 78, naming the problem), and exports the expiry as
 * liquidator_key_expiry_timestamp_seconds.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, type StartSimulatorOptions, startSimulator } from "../../src/sim/startSimulator.js";
import { cleanEnv, daemonEnv, waitFor } from "../support/daemonHarness.js";
import { startInProcessDaemon } from "../support/inProcessDaemon.js";

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

async function sim(options: StartSimulatorOptions): Promise<SimulatorHandle> {
  const s = await startSimulator({ scenario: QUIET_SCENARIO, ...options });
  cleanup.push(() => s.close());
  return s;
}
async function stateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "liq-key-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function run(s: SimulatorHandle): Promise<{ code: number; text: string }> {
  let text = "";
  const sink = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  const code = await main(["run"], {
    stdout: sink,
    stderr: sink,
    env: cleanEnv(daemonEnv(s, await stateDir())),
    signal: new AbortController().signal,
  });
  return { code, text };
}

describe("key expiry and scope", () => {
  test("an expired key: the daemon refuses to start, exit 78, naming the problem", async () => {
    const r = await run(await sim({ key: { expiresAt: Date.now() - 3_600_000 } }));
    expect(r.code).toBe(78);
    expect(r.text).toMatch(/config LIQUIDATOR_SECRET: the venue says this key cannot claim or unwind: the key expired at/);
  });

  test("a read-only key: exit 78 naming the missing scope", async () => {
    const r = await run(await sim({ key: { scope: "read" } }));
    expect(r.code).toBe(78);
    expect(r.text).toMatch(/without 'trading'/);
  });

  test("a good key: the daemon runs and exports its expiry", async () => {
    const expiresAt = Date.now() + 20 * 86_400_000;
    const s = await sim({ key: { expiresAt } });
    const d = await startInProcessDaemon({ sim: s, stateDir: await stateDir(), until: "listening" });
    cleanup.push(() => d.stop());
    const value = await waitFor(async () => {
      const text = await (await fetch(`${d.metricsUrl}/metrics`)).text();
      const m = /^liquidator_key_expiry_timestamp_seconds (\S+)$/m.exec(text);
      return m !== null && Number(m[1]) > 0 ? Number(m[1]) : undefined;
    }, "the key expiry gauge");
    expect(value).toBeCloseTo(expiresAt / 1000, 0);
  });
});
