/**
 * The heatmap's figure on the position-driven market in virtual time (`simulate --virtual-hours`,
 * src/commands/virtualMarket.ts): the lab matches liquidations to bands by price (a push does not
 * say whose position it was), so its recall and precision are checked here against the venue's
 * truth, by account: which liquidated positions sat in a poll's 2 % band ≥ 5 s before their push,
 * and how much of each band was liquidated within 10 minutes. `backtest --json` reports the figure.
 */
import { join } from "node:path";
import { expect } from "vitest";
import { captureVirtualMarket } from "../../src/commands/virtualMarket.js";
import { scoreForecastFiles } from "../../src/lab/replay/forecastScore.js";
import { test } from "../support/rig.js";

interface Band {
  at: number;
  keys: Map<string, { qty: number; mark: number }>;
}

test("recall and precision by price level agree with the venue's truth by account", async ({ rig, build }) => {
  const dir = await rig.dir("forecast");
  const file = join(dir, "hour.jsonl.gz");
  const polls: Band[] = [];
  const liquidations: { at: number; key: string; qty: number; notional: number }[] = [];
  let truthForecast = 0;
  let truthLiquidated = 0;
  const stats = await captureVirtualMarket({
    file,
    hours: 1,
    seed: 3,
    liquidationsPerSec: 0.1,
    onPoll: (at, rows) => {
      const keys = new Map<string, { qty: number; mark: number }>();
      for (const r of rows) {
        if (r.est_liq_price === null) continue;
        const m = Number(r.mark_price);
        const e = Number(r.est_liq_price);
        if ((r.side === "LONG" ? (m - e) / m : (e - m) / m) <= 0.02)
          keys.set(`${r.account_id}|${r.symbol}|${r.side === "LONG" ? 1 : -1}`, { qty: Math.abs(Number(r.position_qty)), mark: m });
      }
      polls.push({ at, keys });
    },
    onLiquidation: (l, mark) => {
      if (l.bankrupt) return;
      let lead: Band | undefined;
      for (const p of polls) if (p.at <= l.at - 5_000) lead = p;
      for (const p of l.positions) {
        const key = `${l.accountId}|${p.symbol}|${Math.sign(p.qty)}`;
        const notional = Math.abs(p.qty) * (mark(p.symbol) as number);
        liquidations.push({ at: l.at, key, qty: Math.abs(p.qty), notional });
        if (lead === undefined) continue;
        truthLiquidated += notional;
        if (lead.keys.has(key)) truthForecast += notional;
      }
    },
  });
  expect(stats.polls).toBe(120);
  expect(stats.liquidations).toBeGreaterThan(100);

  // Precision by account: each poll's band, as much of it as was liquidated within 10 minutes.
  let band = 0;
  let matched = 0;
  for (const p of polls) {
    const left = new Map([...p.keys].map(([k, v]) => [k, v.qty]));
    for (const v of p.keys.values()) band += v.qty * v.mark;
    for (const l of liquidations) {
      const q = left.get(l.key);
      if (l.at <= p.at || l.at > p.at + 600_000 || q === undefined || q <= 0) continue;
      const t = Math.min(q, l.qty);
      left.set(l.key, q - t);
      matched += t * (p.keys.get(l.key)?.mark as number);
    }
  }
  const [figure] = await scoreForecastFiles([file], { lenient: false, prepare: false });
  const truthRecall = truthForecast / truthLiquidated;
  expect(figure?.recall).toBeGreaterThan(0.5);
  expect(Math.abs((figure?.recall as number) - truthRecall)).toBeLessThan(0.06);
  expect(Math.abs((figure?.precision as number) - matched / band)).toBeLessThan(0.03);

  // The command reports it per capture.
  const out = await rig.cli(build.cli, ["backtest", file, "--json", "--jobs", "1"], {}, dir);
  expect(out.status).toBe(0);
  expect((JSON.parse(out.stdout) as { forecast: unknown }).forecast).toEqual([figure]);
}, 300_000);
