/**
 * A month of synthetic journal history, written fast: each claim is six records (intent, accepted
 * outcome with its fill, its margin mode, unwind order intent, filled outcome, fill), stringified into big buffers.
 * Each liquidation lists `symbols` open positions (real ones list several), so a gigabyte is a few
 * hundred thousand claims. Ids rise from `firstId`; every claim is settled and flat.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { JournalRecord } from "../../src/core/journalRecords.js";

const BUF = 8 * 1024 * 1024;

/** The liquidation's open positions, the same for every claim (so built, and stringified, once). */
const OPEN = new Map<number, { list: { symbol: string; positionQty: number; liquidatorFee: number }[]; json: string }>();
function openOf(symbols: number) {
  let o = OPEN.get(symbols);
  if (o === undefined) {
    const list = Array.from({ length: symbols }, (_, i) => ({ symbol: `PERP_S${i}_USDC`, positionQty: 12.5 + i, liquidatorFee: 0.0125 }));
    o = { list, json: JSON.stringify(list) };
    OPEN.set(symbols, o);
  }
  return o;
}

/** One record as its journal line (the intent's long `open` list spliced in from its cached text). */
export function syntheticLine(r: JournalRecord, symbols: number): string {
  if (r.t !== "intent" || r.open === undefined) return `${JSON.stringify(r)}\n`;
  const head = JSON.stringify({ ...r, open: undefined });
  return `${head.slice(0, -1)},"open":${openOf(symbols).json}}\n`;
}

export function syntheticClaim(id: number, at: number, symbols: number): JournalRecord[] {
  const sym = id % 2 === 0 ? "PERP_BTC_USDC" : "PERP_ETH_USDC";
  const price = id % 2 === 0 ? 60000 : 3000;
  const cid = `lqsyn-${id}`;
  const open = openOf(symbols).list;
  return [
    { t: "intent", id, at, ratio: 1, limitPrice: { [sym]: price }, expectedFee: 0.5, perSymbolQty: { [sym]: 0.01 }, open },
    { t: "outcome", id, at: at + 50, result: "accepted", fills: [{ symbol: sym, qty: 0.01, price, fee: 0.5 }], venueTs: at + 40 },
    // The venue's next report says where the claim landed (what unwind.scope: claimed journals).
    { t: "claim_mode", id, symbol: sym, marginMode: "CROSS", at: at + 55 },
    {
      t: "order_intent",
      clientOrderId: cid,
      at: at + 60,
      symbol: sym,
      side: "SELL",
      orderType: "IOC",
      price: price - 5,
      quantity: 0.01,
      reduceOnly: true,
      mark: price,
      seq: id,
      liquidationId: id,
    },
    {
      t: "order_outcome",
      clientOrderId: cid,
      at: at + 80,
      result: "filled",
      orderId: id,
      filledQty: -0.01,
      avgPrice: price,
      fee: 0.01,
      venueTs: at + 70,
    },
    { t: "order_fill", clientOrderId: cid, symbol: sym, qty: -0.01, price, fee: 0.01, tradeId: `t${id}`, at: at + 80, venueTs: at + 70 },
  ];
}

/**
 * Appends claims from `firstId` until `bytes` are written, spread over `spanMs` from `start`; each
 * record is also handed to `onRecord` (e.g. a folder building the snapshot the daemon would have).
 */
export function writeSyntheticHistory(
  path: string,
  o: {
    firstId: number;
    bytes: number;
    start: number;
    spanMs: number;
    symbols: number;
    head?: JournalRecord[];
    onRecord?: (r: JournalRecord) => void;
  },
): { claims: number; bytes: number } {
  const fd = openSync(path, "a");
  const buf = Buffer.allocUnsafe(BUF);
  let used = 0;
  let bytes = 0;
  const put = (r: JournalRecord): void => {
    o.onRecord?.(r);
    const text = syntheticLine(r, o.symbols);
    if (used + text.length * 3 > BUF) {
      writeSync(fd, buf, 0, used);
      used = 0;
    }
    const n = buf.write(text, used);
    used += n;
    bytes += n;
  };
  for (const r of o.head ?? []) put(r);
  const perClaim = syntheticClaim(o.firstId, o.start, o.symbols).reduce((s, r) => s + syntheticLine(r, o.symbols).length, 0);
  const claims = Math.ceil((o.bytes - bytes) / perClaim);
  for (let i = 0; i < claims; i++)
    for (const r of syntheticClaim(o.firstId + i, o.start + Math.floor((i * o.spanMs) / claims), o.symbols)) put(r);
  writeSync(fd, buf, 0, used);
  closeSync(fd);
  return { claims, bytes };
}
