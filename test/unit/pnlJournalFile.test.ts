/**
 * `liquidator pnl` reads the journal of the configured venue and account: on a state.dir that served
 * the testnet first (claims.jsonl) and mainnet since (its own file), each preset's P&L is its own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, expect, test } from "vitest";
import { pnl } from "../../src/commands/pnl.js";
import { JOURNAL_FILE } from "../../src/store/fileJournal.js";
import { pairJournalNameForTests } from "../../src/store/ownJournalFile.js";
import { generateKeyPair } from "../../src/venue/signer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An account id of the real venue's form (0x and 64 hex digits: a preset refuses another). */
const ACCOUNT = `0x${"ac".repeat(32)}`;
const TESTNET = { baseUrl: "https://testnet-api.orderly.org", accountId: ACCOUNT };
const MAINNET = { baseUrl: "https://api.orderly.org", accountId: ACCOUNT };

function journal(pair: typeof TESTNET, fee: number): string {
  const records = [
    { t: "venue", at: 1, ...pair },
    { t: "intent", id: 5, at: 2, ratio: 1, limitPrice: {}, expectedFee: fee, perSymbolQty: { PERP_ETH_USDC: 1 } },
    { t: "outcome", id: 5, at: 3, result: "accepted", fills: [{ symbol: "PERP_ETH_USDC", qty: 1, price: 3850, fee }] },
  ];
  return `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
}

async function pnlTotal(stateDir: string, preset: "orderly-testnet" | "orderly-mainnet"): Promise<string> {
  const config = join(stateDir, `${preset}.yaml`);
  writeFileSync(
    config,
    `venue:\n  mode: live\n  preset: ${preset}\n  account_id: "${ACCOUNT}"\nstate:\n  dir: ${JSON.stringify(stateDir)}\n`,
  );
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  stdout.on("data", (c) => {
    out += String(c);
  });
  const env = { LIQUIDATOR_SECRET: generateKeyPair().secret };
  await pnl(["--config", config], { stdout, stderr, env, signal: new AbortController().signal });
  return out.split("\n").find((l) => l.startsWith("total:")) ?? out;
}

test("each preset on one state.dir reads its own journal", async () => {
  const dir = mkdtempSync(join(tmpdir(), "liq-pnl-pair-"));
  dirs.push(dir);
  writeFileSync(join(dir, JOURNAL_FILE), journal(TESTNET, 11));
  mkdirSync(dirname(join(dir, pairJournalNameForTests(MAINNET))), { recursive: true });
  writeFileSync(join(dir, pairJournalNameForTests(MAINNET)), journal(MAINNET, 22));
  expect(await pnlTotal(dir, "orderly-testnet")).toContain("liquidator fees 11");
  expect(await pnlTotal(dir, "orderly-mainnet")).toContain("liquidator fees 22");
});

test("--json and --csv print money to 1e-6, never float noise; the journal keeps the exact values", async () => {
  const dir = mkdtempSync(join(tmpdir(), "liq-pnl-round-"));
  dirs.push(dir);
  // A fee and an unwind whose float sums leave noise (0.1 + 0.2 style tails).
  const records = [
    { t: "venue", at: 1, ...TESTNET },
    { t: "intent", id: 5, at: 2, ratio: 1, limitPrice: {}, expectedFee: 59.83512725278925, perSymbolQty: { PERP_ETH_USDC: 0.3 } },
    {
      t: "outcome",
      id: 5,
      at: 3,
      result: "accepted",
      fills: [{ symbol: "PERP_ETH_USDC", qty: 0.3, price: 3850.1, fee: 59.83512725278925 }],
    },
    {
      t: "order_intent",
      clientOrderId: "c1",
      at: 4,
      symbol: "PERP_ETH_USDC",
      side: "SELL",
      orderType: "IOC",
      price: 3849.7,
      quantity: 0.1,
      reduceOnly: true,
      mark: 3850,
    },
    {
      t: "order_fill",
      clientOrderId: "c1",
      symbol: "PERP_ETH_USDC",
      qty: -0.1,
      price: 3849.7,
      fee: 0.10454127999990492,
      tradeId: "1",
      at: 5,
    },
    { t: "order_fill", clientOrderId: "c1", symbol: "PERP_ETH_USDC", qty: -0.2, price: 3849.9, fee: 0.2, tradeId: "2", at: 6 },
  ];
  writeFileSync(join(dir, JOURNAL_FILE), `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
  const config = join(dir, "c.yaml");
  writeFileSync(
    config,
    `venue:\n  mode: live\n  preset: orderly-testnet\n  account_id: "${ACCOUNT}"\nstate:\n  dir: ${JSON.stringify(dir)}\n`,
  );
  const run = async (format: string): Promise<string> => {
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (c) => {
      out += String(c);
    });
    await pnl(["--config", config, format], {
      stdout,
      stderr: new PassThrough(),
      env: { LIQUIDATOR_SECRET: generateKeyPair().secret },
      signal: new AbortController().signal,
    });
    return out;
  };
  const json = await run("--json");
  const csv = await run("--csv");
  for (const text of [json, csv]) {
    const decimals = [...text.matchAll(/-?\d+\.(\d+)/g)].map((m) => (m[1] as string).length);
    expect(Math.max(...decimals)).toBeLessThanOrEqual(6);
  }
  const row = (JSON.parse(json) as Record<string, unknown>[])[0];
  expect(row).toMatchObject({ liquidator_fee: 59.835127, fees: 0.304541 });
});
