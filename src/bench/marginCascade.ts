/**
 * The bench's margin-bound cascade: the daemon (as a user runs it) against a simulated venue in this
 * process whose account has 20,000 of collateral at 10× leverage, `policy.max_margin_usage` 0.9 and
 * unwinding off, so one budget decides. One cascade worth about three budgets of initial margin is
 * pushed in one frame; measured: the fee captured ÷ the best that fits (marginBest.ts, from the
 * venue's book), the claims the venue refused for margin (-1101), and the time from the push to the
 * last claim that fit (venue time).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { QUIET_SCENARIO } from "../sim/scenario.js";
import { startSimulator } from "../sim/startSimulator.js";
import { INSUFFICIENT_MARGIN_CODE } from "../venue/failureTable.js";
import type { ProcessGroup } from "./children.js";
import { startDaemon } from "./daemonRunner.js";
import { bestFeeThatFits, marginItems } from "./marginBest.js";

const COLLATERAL = 20_000;
const LEVERAGE = 10;
const USAGE = 0.9;
const SYMBOLS = ["PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC", "PERP_WIF_USDC", "PERP_EUR_USDC"];
/** The claims have settled once none came for this long. */
const QUIET_MS = 3_000;
const TIMEOUT_MS = 60_000;

export interface MarginCascadeResult {
  liquidations: number;
  /** Initial margin the cascade would take whole ÷ the budget (max_margin_usage × collateral). */
  budgets: number;
  bestFee: number;
  capturedFee: number;
  /** capturedFee ÷ bestFee (goal ≥ 0.95). */
  ratio: number;
  claims: number;
  /** Claims the venue refused for margin (goal 0). */
  marginRefusals: number;
  /** From the cascade's push to the last claim the venue applied, ms. */
  pushToLastClaimMs: number;
}

export async function measureMarginCascade(group: ProcessGroup, cli: string, workDir: string, size = 26): Promise<MarginCascadeResult> {
  const sim = await startSimulator({
    port: 0,
    seed: 26,
    collateral: COLLATERAL,
    maxLeverage: LEVERAGE,
    liquidationTtlMs: 600_000,
    scenario: QUIET_SCENARIO,
    rateLimits: false,
  });
  try {
    const daemon = await startDaemon(
      group,
      {
        cli,
        venue: {
          baseUrl: sim.baseUrl,
          wsUrl: sim.wsUrl,
          wsPrivateUrl: sim.wsPrivateUrl,
          accountId: sim.accountId,
          secret: sim.secret,
          pid: process.pid,
        },
        workDir,
        claimsPerSecond: 5,
        maxMarginUsage: USAGE,
        unwindOff: true,
      },
      "margin",
    );
    try {
      const budget = USAGE * COLLATERAL;
      const pushedAt = sim.core.now();
      const ids = sim.core.cascade(size, { symbols: SYMBOLS, side: 1, notional: [5_000, 25_000] });
      // The venue's book as the cascade opened it: the push has not reached the daemon yet.
      const items = marginItems(sim.core, ids, LEVERAGE);
      const mine = () => sim.core.claims().filter((c) => c.accountId === sim.accountId);
      let seen = -1;
      let quietSince = Date.now();
      const deadline = Date.now() + TIMEOUT_MS;
      while (Date.now() < deadline) {
        const n = mine().length;
        if (n !== seen) {
          seen = n;
          quietSince = Date.now();
        } else if (n > 0 && Date.now() - quietSince >= QUIET_MS) break;
        await sleep(100);
      }
      const applied = mine().filter((c) => c.code === 0);
      const captured = applied.reduce((s, c) => s + c.transfers.reduce((a, t) => a + t.absLiquidatorFee, 0), 0);
      const best = bestFeeThatFits(items, budget);
      return {
        liquidations: ids.length,
        budgets: round2(items.reduce((s, i) => s + i.margin, 0) / budget),
        bestFee: round2(best),
        capturedFee: round2(captured),
        ratio: best > 0 ? round4(captured / best) : Number.NaN,
        claims: applied.length,
        marginRefusals: mine().filter((c) => c.code === INSUFFICIENT_MARGIN_CODE).length,
        pushToLastClaimMs: applied.length === 0 ? Number.NaN : Math.max(...applied.map((c) => c.decidedAt)) - pushedAt,
      };
    } finally {
      await daemon.stop();
    }
  } finally {
    await sim.close();
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
