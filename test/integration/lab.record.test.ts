/**
 * `liquidator record` against the simulated venue (port 0, live mode over loopback): the capture holds
 * the header, symbol info, open lists, marks and liquidation frames, claims nothing, and replays into
 * a self-contained HTML report (no script, no external reference).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { readCapture } from "../../src/lab/capture/captureReader.js";
import { runCli } from "../support/captures.js";
import { claimsBy, daemonEnv } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

describe("record", () => {
  test("records what the venue shows for --minutes, claims nothing; backtest renders HTML from it", async ({ rig }) => {
    const sim = await rig.sim();
    const dir = await rig.dir("record");
    const out = join(dir, "cap.jsonl.gz");
    const env = daemonEnv(sim, dir);
    const adding = (async () => {
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 300)); // paces the liquidations over the recording
        sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 + i }] });
      }
    })();
    const r = await runCli(["record", "--out", out, "--minutes", "0.05"], env);
    await adding;
    expect(r.code).toBe(0);
    const kinds = new Map<string, number>();
    for await (const ev of readCapture(out)) kinds.set(ev.k, (kinds.get(ev.k) ?? 0) + 1);
    expect(kinds.get("info")).toBe(1);
    expect(kinds.get("open") ?? 0).toBeGreaterThan(1);
    expect(kinds.get("markprices") ?? 0).toBeGreaterThan(1);
    expect(kinds.get("liquidation") ?? 0).toBeGreaterThan(0);
    // The heatmap is polled at the start (forecast.enabled): one poll of the venue's platform positions.
    expect(kinds.get("forecast")).toBe(1);
    expect(kinds.has("claim")).toBe(false);
    expect(claimsBy(sim)).toEqual([]);

    const html = join(dir, "r.html");
    const bt = await runCli(["backtest", "--capture", out, "--set", "policy.min_fee=0,10", "--html", html]);
    expect(bt.code).toBe(0);
    expect(bt.stdout).toContain("assumptions:");
    const page = await readFile(html, "utf8");
    expect(page).toContain("<svg");
    expect(page).toContain("default policy.min_fee=10");
    expect(page).not.toMatch(/<script|src=|href=|url\(/i);
  });

  test("simulate --capture FILE --minutes N records the simulated market and exits", async ({ rig }) => {
    const dir = await rig.dir("simcap");
    const out = join(dir, "sim.jsonl.gz");
    const r = await runCli(["simulate", "--capture", out, "--minutes", "0.04"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/events captured to/);
    let info = 0;
    let marks = 0;
    for await (const ev of readCapture(out)) {
      if (ev.k === "info") info++;
      if (ev.k === "markprices") marks++;
    }
    expect(info).toBe(1);
    expect(marks).toBeGreaterThan(0);
  });
});
