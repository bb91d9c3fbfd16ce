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
import { pairJournalName } from "../../src/store/ownJournalFile.js";
import { generateKeyPair } from "../../src/venue/signer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TESTNET = { baseUrl: "https://testnet-api.orderly.org", accountId: "0xacc" };
const MAINNET = { baseUrl: "https://api.orderly.org", accountId: "0xacc" };

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
  writeFileSync(config, `venue:\n  mode: live\n  preset: ${preset}\n  account_id: "0xacc"\nstate:\n  dir: ${JSON.stringify(stateDir)}\n`);
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
  mkdirSync(dirname(join(dir, pairJournalName(MAINNET))), { recursive: true });
  writeFileSync(join(dir, pairJournalName(MAINNET)), journal(MAINNET, 22));
  expect(await pnlTotal(dir, "orderly-testnet")).toContain("liquidator fees 11");
  expect(await pnlTotal(dir, "orderly-mainnet")).toContain("liquidator fees 22");
});
