/**
 * In-process throughput: policy decisions per second (`decide()` over liquidations shaped like the
 * simulator's, with the default risk policy, fresh marks and an exposure book holding positions and
 * in-flight reservations) and ed25519 signatures per second of a claim-sized message (node:crypto
 * KeyObject through `Signer`, and @noble/ed25519 for reference).
 */
import { createHash } from "node:crypto";
import * as ed from "@noble/ed25519";
import { compileRiskPolicy } from "../config/riskPolicyOf.js";
import { Exposure } from "../engine/exposure.js";
import { MarkBook } from "../engine/marks.js";
import { decide, type PolicyContext } from "../engine/policy.js";
import { SymbolTable } from "../engine/symbolInfo.js";
import type { Liquidation } from "../engine/types.js";
import { generatePositions } from "../sim/liquidationGen.js";
import { Prng } from "../sim/prng.js";
import { DEFAULT_SYMBOLS, ListedSymbols } from "../sim/symbols.js";
import { generateKeyPair, parseSecret, Signer, signingMessage } from "../venue/signer.js";

export interface ThroughputResult {
  decisionsPerSecond: number;
  /** Share of the decisions that were claims (the rest: skips with a reason). */
  claimShare: number;
  signaturesPerSecond: number;
  /** Signer.headers(): the four signed headers of one claim (timestamp, message, signature, base64url). */
  signedHeadersPerSecond: number;
  nobleSignaturesPerSecond: number;
  /** Median of this many rounds of `roundMs` each. */
  rounds: number;
  roundMs: number;
}

/** Runs `fn(i)` repeatedly for about `ms`; returns calls per second. */
function rate(fn: (i: number) => void, ms: number): number {
  const batch = 256;
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < batch; i++) fn(calls + i);
    calls += batch;
    now = performance.now();
  }
  return (calls * 1000) / (now - start);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** The simulator's default symbols as the daemon's table holds them after reading `/v1/public/info`. */
export function simulatorSymbolTable(): SymbolTable {
  return new SymbolTable(
    DEFAULT_SYMBOLS.map((s) => ({
      symbol: s.symbol,
      tier: s.tier,
      liquidatorFee: s.liquidatorFee,
      priceTick: s.baseTick,
      minNotional: s.minNotional,
    })),
  );
}

/** A policy context like a running daemon's: default policy, every symbol priced, some exposure. */
function realisticContext(now: number): PolicyContext {
  const symbols = simulatorSymbolTable();
  const marks = new MarkBook();
  for (const s of DEFAULT_SYMBOLS) marks.set(s.symbol, s.startPrice, now - 400);
  const exposure = new Exposure();
  exposure.setHeld("PERP_BTC_USDC", 0.3);
  exposure.setHeld("PERP_ETH_USDC", -4);
  exposure.setHeld("PERP_DOGE_USDC", 20_000);
  for (let id = 1; id <= 20; id++) exposure.reserve(id, { PERP_SOL_USDC: id % 2 === 0 ? 5 : -5 });
  const policy = compileRiskPolicy({
    max_claim_notional: 50_000,
    max_total_exposure: 250_000,
    min_fee: 1,
    limit_price_slippage_bps: 50,
    max_mark_age_ms: 3_000,
    symbols: { allow: [], deny: [] },
    per_symbol: {},
  });
  return { policy, symbols, marks, exposure };
}

/** Liquidations as the simulator generates them (1 to 3 symbols, 1,000 to 60,000 of notional each). */
function realisticLiquidations(n: number, seed: number, now: number): Liquidation[] {
  const prng = new Prng(seed);
  const table = new ListedSymbols();
  const out: Liquidation[] = [];
  for (let i = 0; i < n; i++) {
    const positions = generatePositions(prng, table, (s) => table.get(s)?.startPrice).map((p) => ({
      symbol: p.symbol,
      positionQty: p.position_qty,
      liquidatorFee: table.get(p.symbol)?.liquidatorFee ?? 0,
    }));
    out.push({ liquidationId: 1000 + i, timestamp: now - 5, positions });
  }
  return out;
}

export function measureThroughput(rounds = 5, roundMs = 1_000): ThroughputResult {
  const now = 1_700_000_000_000;
  const ctx = realisticContext(now);
  const liqs = realisticLiquidations(4096, 7, now);
  const mask = liqs.length - 1;
  let claims = 0;
  for (const l of liqs) if (decide(l, ctx, now).action === "claim") claims++;

  const key = generateKeyPair();
  const signer = new Signer({ secret: key.secret, accountId: "0xbench" });
  const body =
    '{"liquidation_id":123456,"ratio_qty_request":1,"limit_price":{"PERP_BTC_USDC":104771.2},"symbols":[{"symbol":"PERP_BTC_USDC","ratio_qty_request":1}]}';
  const message = signingMessage(now, "POST", "/v1/liquidation", body);
  ed.hashes.sha512 = (m: Uint8Array) => new Uint8Array(createHash("sha512").update(m).digest());
  const seed = parseSecret(key.secret);
  const messageBytes = new TextEncoder().encode(message);

  const decisions: number[] = [];
  const signatures: number[] = [];
  const headers: number[] = [];
  const noble: number[] = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    decisions.push(
      rate((i) => {
        sink += decide(liqs[i & mask] as Liquidation, ctx, now).liquidationId;
      }, roundMs),
    );
    signatures.push(
      rate(() => {
        sink += signer.sign(message).length;
      }, roundMs / 2),
    );
    headers.push(
      rate(() => {
        sink += Object.keys(signer.headers("POST", "/v1/liquidation", body, now)).length;
      }, roundMs / 2),
    );
    noble.push(
      rate(() => {
        sink += ed.sign(messageBytes, seed).length;
      }, roundMs / 4),
    );
  }
  if (sink === 0) throw new Error("unreachable: keeps the loops from being optimised away");
  return {
    decisionsPerSecond: Math.round(median(decisions)),
    claimShare: claims / liqs.length,
    signaturesPerSecond: Math.round(median(signatures)),
    signedHeadersPerSecond: Math.round(median(headers)),
    nobleSignaturesPerSecond: Math.round(median(noble)),
    rounds,
    roundMs,
  };
}
