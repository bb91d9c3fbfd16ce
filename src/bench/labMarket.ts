/**
 * A synthetic capture for the replay bench: `hours` of a market like the default simulated one as the
 * daemon records it (8 symbols, marks every second, about one liquidation every 2 s, each open for
 * 5–60 s, a cascade of 8 in one frame every 45 s, the open list read every 5 s: the daemon's
 * reconcile interval), written with the production writer. Deterministic for a seed.
 */
import type { CaptureEvent } from "../daemon/records/captureTap.js";
import { CaptureFiles } from "../lab/capture/captureFiles.js";
import { CaptureQueue } from "../lab/capture/captureQueue.js";
import { Prng } from "../sim/prng.js";

const SYMBOLS: [symbol: string, mark: number, tick: number][] = [
  ["PERP_BTC_USDC", 60_000, 0.1],
  ["PERP_ETH_USDC", 3_000, 0.01],
  ["PERP_SOL_USDC", 150, 0.001],
  ["PERP_DOGE_USDC", 0.15, 0.00001],
  ["PERP_WIF_USDC", 2, 0.0001],
  ["PERP_ARB_USDC", 1, 0.0001],
  ["PERP_OP_USDC", 2.5, 0.0001],
  ["PERP_LINK_USDC", 15, 0.001],
];

interface Open {
  id: number;
  until: number;
  timestamp: number;
  positions: { symbol: string; positionQty: number; liquidatorFee: number }[];
}

/** The daemon reads the open list every 5 s (daemon/feeds/restFeed.ts); the simulator cascades every 45 s. */
const OPEN_LIST_EVERY_S = 5;
const CASCADE_EVERY_S = 45;
const CASCADE_SIZE = 8;

export async function writeLabMarket(path: string, hours: number, seed = 1): Promise<number> {
  const prng = new Prng(seed);
  const t0 = Date.UTC(2026, 0, 5);
  const marks = SYMBOLS.map(([, m]) => m);
  const info = {
    rows: SYMBOLS.map(([symbol, , tick], i) => ({
      symbol,
      liquidation_tier: i < 2 ? 1 : 2,
      liquidator_fee: i < 2 ? 0.006 : 0.012,
      quote_min: 0,
      quote_max: 1e9,
      quote_tick: tick,
      base_min: 0.0001,
      base_max: 1e9,
      base_tick: 0.0001,
      min_notional: 10,
      price_range: 0.03,
    })),
  };
  const futures = () => ({
    rows: SYMBOLS.map(([symbol], i) => ({ symbol, mark_price: marks[i] as number, index_price: marks[i] as number })),
  });
  const files = new CaptureFiles({ target: { mode: "single", path }, writer: "bench", venue: "synthetic" });
  const queue = new CaptureQueue(files, { maxQueued: 1_000_000, batchMs: 0 });
  let n = 0;
  const put = (ev: CaptureEvent) => {
    queue.record(ev);
    n++;
  };
  put({ k: "info", at: t0, requestedAt: t0, info, futures: futures() } as unknown as CaptureEvent);
  const open: Open[] = [];
  let nextId = 1;
  for (let s = 1; s <= hours * 3600; s++) {
    const at = t0 + s * 1000;
    if (s % 60 === 0) await new Promise((r) => setImmediate(r)); // let the writer drain
    for (let i = 0; i < marks.length; i++) marks[i] = (marks[i] as number) * (1 + prng.uniform(-0.001, 0.001));
    put({ k: "markprices", at, data: SYMBOLS.map(([symbol], i) => ({ symbol, price: marks[i] as number })) });
    const born: Open[] = [];
    const arrivals = prng.chance(0.5) ? 1 : 0;
    for (let j = 0; j < arrivals + (s % CASCADE_EVERY_S === 0 ? CASCADE_SIZE : 0); j++) {
      const k = prng.int(0, SYMBOLS.length - 1);
      const [symbol] = SYMBOLS[k] as [string, number, number];
      const notional = prng.uniform(500, 60_000);
      const qty = (prng.chance(0.5) ? 1 : -1) * Number((notional / (marks[k] as number)).toFixed(4));
      born.push({
        id: nextId++,
        until: at + prng.int(5_000, 60_000),
        timestamp: at,
        positions: [{ symbol, positionQty: qty, liquidatorFee: k < 2 ? 0.006 : 0.012 }],
      });
    }
    if (born.length > 0) {
      open.push(...born);
      put({
        k: "liquidation",
        at: at + 200,
        data: born.map((liq) => ({ liquidationId: liq.id, timestamp: at, type: "liquidated", positionsByPerp: liq.positions })),
      });
    }
    for (let i = open.length - 1; i >= 0; i--) {
      const o = open[i] as Open;
      if (o.until > at) continue;
      open.splice(i, 1);
      put({
        k: "liquidation",
        at: at + 300,
        data: [{ liquidationId: o.id, timestamp: o.timestamp, type: "liquidated", positionsByPerp: [] }],
      });
    }
    if (s % OPEN_LIST_EVERY_S !== 0) continue;
    const rows = open.map((o) => ({
      liquidation_id: o.id,
      timestamp: o.timestamp,
      type: "liquidated",
      positions_by_perp: o.positions.map((p) => ({ symbol: p.symbol, position_qty: p.positionQty, liquidator_fee: p.liquidatorFee })),
    }));
    put({ k: "open", at: at + 500, requestedAt: at + 450, rows } as unknown as CaptureEvent);
  }
  await queue.close();
  return n;
}
