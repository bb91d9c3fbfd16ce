/**
 * Bad input to `backtest`: a truncated gzip, a newer format version, a line that is not an event,
 * an unknown `--set` key or a refused value. Each is a clear message naming what is wrong (file and
 * line, or the key) and a distinct exit status: 65 for captures, 64 for the command line.
 */
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { buildVariants } from "../../src/lab/sweep/variants.js";
import { header, market, runCli, writeCapture, writeRawCapture } from "../support/captures.js";
import { removeDir, tempDir, writePolicyFile } from "../support/daemonHarness.js";

let dir: string | undefined;
afterEach(async () => {
  await removeDir(dir);
  dir = undefined;
});

const goodLines = () => market(20, []).map((e) => JSON.stringify(e));

describe("backtest refuses bad captures", () => {
  test("a truncated gzip file: exit 65, the file named, 'truncated'", async () => {
    dir = await tempDir("bad-trunc");
    const file = join(dir, "cut.jsonl.gz");
    await writeRawCapture(file, [header(), ...goodLines()], 40);
    const r = await runCli(["backtest", file]);
    expect(r.code).toBe(65);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/truncated/);
  });

  test("a newer format version: refused, the version named", async () => {
    dir = await tempDir("bad-version");
    const file = join(dir, "v9.jsonl.gz");
    await writeRawCapture(file, [header(9), ...goodLines()]);
    const r = await runCli(["backtest", file]);
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/format version 9 is newer/);
  });

  test("not a capture at all (no header): refused at line 1", async () => {
    dir = await tempDir("bad-header");
    const file = join(dir, "nohdr.jsonl.gz");
    await writeRawCapture(file, goodLines());
    const r = await runCli(["backtest", file]);
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/line 1: not a capture header/);
  });

  test("a garbage line: refused naming its line; --lenient skips and counts it", async () => {
    dir = await tempDir("bad-line");
    const file = join(dir, "garbage.jsonl.gz");
    const lines = goodLines();
    lines.splice(5, 0, '{"k":"markprices","at":', "\u0000\u0001 not json", '{"k":"open","at":5,"requestedAt":4,"rows":"not rows"}');
    await writeRawCapture(file, [header(), ...lines]);
    const strict = await runCli(["backtest", file]);
    expect(strict.code).toBe(65);
    expect(strict.stderr).toContain(`${file} line 7:`);
    const lenient = await runCli(["backtest", file, "--lenient", "--json"]);
    expect(lenient.code).toBe(0);
    const out = JSON.parse(lenient.stdout) as { bad_lines: number; events: number };
    expect(out.bad_lines).toBe(3); // a cut line, garbage, and JSON of the wrong shape
    expect(out.events).toBe(lines.length - 3);
  });

  test("a missing file: exit 65 naming it", async () => {
    const r = await runCli(["backtest", "/nonexistent/cap.jsonl.gz"]);
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/nonexistent\/cap\.jsonl\.gz.*no such file/);
  });
});

describe("variants", () => {
  test("each --config times the cross product of the --set lists, named and with their settings", async () => {
    dir = await tempDir("variants");
    const a = await writePolicyFile(dir, { min_fee: 1 }, "a.yaml");
    const b = await writePolicyFile(dir, { min_fee: 2 }, "b.yaml");
    const v = await buildVariants([a, b], ["policy.min_fee=1,5,20", "policy.limit_price_slippage_bps=20,50"]);
    expect(v).toHaveLength(12);
    expect(v.map((x) => x.name)).toContain("b policy.min_fee=20 policy.limit_price_slippage_bps=50");
    expect(new Set(v.map((x) => x.name)).size).toBe(12);
    const pick = v.find((x) => x.name === "a policy.min_fee=5 policy.limit_price_slippage_bps=20");
    expect(pick?.settings).toEqual({ config: a, "policy.min_fee": 5, "policy.limit_price_slippage_bps": 20 });
    expect(pick?.config.policy.min_fee).toBe(5);
    expect(pick?.config.policy.limit_price_slippage_bps).toBe(20);
    const none = await buildVariants([], []);
    expect(none.map((x) => x.name)).toEqual(["default"]);
  });

  test("values are YAML scalars", async () => {
    const modes = await buildVariants([], ["unwind.mode=off,immediate"]);
    expect(modes.map((v) => v.settings["unwind.mode"])).toEqual(["off", "immediate"]);
    const [dry] = await buildVariants([], ["policy.dry_run=true"]);
    expect(dry?.settings["policy.dry_run"]).toBe(true);
    expect(dry?.config.policy.dry_run).toBe(true);
  });

  test("an unknown --set key, or a value the schema refuses, exits 64 naming it", async () => {
    dir = await tempDir("variants-bad");
    const file = join(dir, "c.jsonl.gz");
    await writeCapture(file, market(3, []));
    const unknown = await runCli(["backtest", file, "--set", "policy.min_feee=1,2"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain("policy.min_feee");
    const refused = await runCli(["backtest", file, "--set", "policy.min_fee=1,-5"]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain("policy.min_fee=-5");
    const malformed = await runCli(["backtest", file, "--set", "nokey"]);
    expect(malformed.code).toBe(64);
  });
});
