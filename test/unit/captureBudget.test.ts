/**
 * The capture cap fits its volume (fs.statfs): 0 takes half the space captures may use, a cap larger
 * than the free space (less the journal's reserve) is refused naming the key, and captures already in
 * the folder count as space the cap may reuse.
 */
import { statfsSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { captureBudget, JOURNAL_RESERVE_FOR_TESTS } from "../../src/app/openCapture.js";
import { ConfigError } from "../../src/errors.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function stateDir(): Promise<{ stateDir: string; captureDir: string }> {
  const d = await mkdtemp(join(tmpdir(), "liq-capture-budget-"));
  dirs.push(d);
  return { stateDir: d, captureDir: join(d, "capture") };
}

const free = (dir: string): number => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

describe("captureBudget", () => {
  test("0: half the volume's free space", async () => {
    const where = await stateDir();
    const before = free(where.stateDir);
    const b = await captureBudget({ ...where, configured: 0 });
    expect(b.derived).toBe(true);
    // Other writers share the disk: the free space moves a little between the two readings.
    expect(Math.abs(b.maxBytes - before / 2)).toBeLessThan(before * 0.05 + 1e7);
    expect(b.maxBytes).toBeLessThanOrEqual(b.freeBytes);
  });

  test("a cap larger than the free space is refused at start, naming the key and a value that fits", async () => {
    const where = await stateDir();
    const tooBig = free(where.stateDir) * 2 + 1e12;
    let err: unknown;
    try {
      await captureBudget({ ...where, configured: tooBig });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe("state.capture_max_bytes");
    const message = (err as Error).message;
    for (const part of [String(tooBig), where.stateDir, "bytes free", "set at most"]) expect(message).toContain(part);
  });

  test("a cap within the free space (less the journal's reserve) is kept as configured", async () => {
    const where = await stateDir();
    const cap = Math.floor((free(where.stateDir) - JOURNAL_RESERVE_FOR_TESTS) / 4);
    expect(await captureBudget({ ...where, configured: cap })).toMatchObject({ maxBytes: cap, derived: false });
  });

  test("captures already in the folder count as room: the cap may reuse their space", async () => {
    const where = await stateDir();
    await captureBudget({ ...where, configured: 0 }); // creates the folder
    const existing = 4_000_000;
    writeFileSync(join(where.captureDir, "capture-2026-11-27.jsonl.gz"), Buffer.alloc(existing));
    const b = await captureBudget({ ...where, configured: 0 });
    expect(b.maxBytes).toBeGreaterThanOrEqual(Math.floor((b.freeBytes + existing) / 2) - 1);
  });
});
