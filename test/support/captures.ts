/**
 * Capture files for the policy lab's tests: written with the production writer (so the format under
 * test is the real one), or by hand (gzip of given lines) for damaged inputs. A small synthetic
 * market: symbol info for two symbols, marks, and liquidations arriving and leaving.
 */
import { writeFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import { CaptureFiles } from "../../src/lab/capture/captureFiles.js";
import { CaptureQueue } from "../../src/lab/capture/captureQueue.js";

export const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);

const infoRow = (symbol: string, tier: number, fee: number, tick: number) => ({
  symbol,
  liquidation_tier: tier,
  liquidator_fee: fee,
  quote_min: 0,
  quote_max: 10_000_000,
  quote_tick: tick,
  base_min: 0.0001,
  base_max: 1_000_000,
  base_tick: 0.0001,
  min_notional: 10,
  price_range: 0.03,
});

export function infoEvent(at: number, marks: Record<string, number>): CaptureEvent {
  const futures = { rows: Object.entries(marks).map(([symbol, mark_price]) => ({ symbol, mark_price, index_price: mark_price })) };
  return {
    k: "info",
    at,
    requestedAt: at - 5,
    info: { rows: [infoRow("PERP_ETH_USDC", 1, 0.008, 0.01), infoRow("PERP_BTC_USDC", 1, 0.006, 0.1)] },
    futures,
  } as unknown as CaptureEvent;
}

export function marksEvent(at: number, marks: Record<string, number>): CaptureEvent {
  return { k: "markprices", at, data: Object.entries(marks).map(([symbol, price]) => ({ symbol, price })) };
}

/** A liquidation push: `qty` 0 for every symbol = removed (empty positionsByPerp). */
export function liquidationEvent(at: number, id: number, positions: Record<string, number>, fee = 0.008): CaptureEvent {
  const positionsByPerp = Object.entries(positions)
    .filter(([, q]) => q !== 0)
    .map(([symbol, positionQty]) => ({ symbol, positionQty, liquidatorFee: fee }));
  return { k: "liquidation", at, data: [{ liquidationId: id, timestamp: at - 100, type: "liquidated", positionsByPerp }] };
}

export function claimEvent(at: number, id: number, code: number, latencyMs = 20): CaptureEvent {
  return {
    k: "claim",
    at: at + latencyMs,
    sentAt: at,
    id,
    code,
    request: { liquidation_id: id, ratio_qty_request: 1, limit_price: {} },
  } as unknown as CaptureEvent;
}

/** A short market: ETH and BTC marks every second for `seconds`, and the given extra events. */
export function market(seconds: number, extra: readonly CaptureEvent[]): CaptureEvent[] {
  const marks = { PERP_ETH_USDC: 3000, PERP_BTC_USDC: 60_000 };
  const out: CaptureEvent[] = [infoEvent(T0, marks)];
  for (let s = 1; s <= seconds; s++) out.push(marksEvent(T0 + s * 1000, { PERP_ETH_USDC: 3000 + s, PERP_BTC_USDC: 60_000 - 10 * s }));
  out.push(...extra);
  return out.sort((a, b) => a.at - b.at);
}

/** Writes `events` with the production writer (single file). */
export async function writeCapture(path: string, events: readonly CaptureEvent[]): Promise<void> {
  const files = new CaptureFiles({ target: { mode: "single", path }, writer: "test", venue: "http://test" });
  const queue = new CaptureQueue(files);
  for (const ev of events) queue.record(ev);
  await queue.close();
}

/** Writes raw lines, gzip-compressed; `cut` bytes are taken off the end (a truncated file). */
export async function writeRawCapture(path: string, lines: readonly string[], cut = 0): Promise<void> {
  const gz = gzipSync(`${lines.join("\n")}\n`);
  await writeFile(path, gz.subarray(0, gz.length - cut));
}

export function header(version = 1): string {
  return JSON.stringify({ format: "liquidator-capture", version, created_at: new Date(T0).toISOString(), writer: "test", venue: "x" });
}

/** Runs `liquidator <args>` in process: exit status and what it printed. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import("../../src/commands/dispatch.js");
  const { Writable } = await import("node:stream");
  const sink = () => {
    const chunks: string[] = [];
    const w = new Writable({
      write(chunk, _enc, cb) {
        chunks.push(String(chunk));
        cb();
      },
    });
    return { w, text: () => chunks.join("") };
  };
  const out = sink();
  const err = sink();
  const code = await main(args, { stdout: out.w, stderr: err.w, env, signal: new AbortController().signal });
  return { code, stdout: out.text(), stderr: err.text() };
}
