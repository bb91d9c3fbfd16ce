/**
 * The bench's margin-bound cascades: the daemon (as a user runs it) against a simulated venue in this
 * process whose account's collateral a cascade exhausts, `policy.max_margin_usage` 0.9 and unwinding
 * off, so one budget decides. One cascade worth several budgets of initial margin is pushed in one
 * frame; measured: the fee captured ÷ the best that fits (marginBest.ts, from the venue's book and
 * formulas, the venue crediting each claim's fee to the collateral), the claims the venue refused for
 * margin (-1101), the venue's margin usage after, and the time from the push to the last claim that
 * fit (venue time).
 *
 * - `margin`: 20,000 of collateral at 10× on every symbol; liquidations as whole items (the daemon
 *   claims every eligible symbol of one).
 * - `leverage`: issue #34's account (docs/protocol.md §10): ETH at 4×, NEAR at 5×, 10× elsewhere, its own
 *   imr_factor on NEAR and ARB (leverage.ts LEVERAGE_CASCADE_ACCOUNT), 2,000 of collateral, 30
 *   liquidations; the best per symbol (a high-risk liquidation's symbols may be claimed apart).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SimAccount } from "../sim/accounts.js";
import { accountMargin, LEVERAGE_CASCADE_ACCOUNT, LEVERAGE_CASCADE_SYMBOLS, type SimAccountMargin } from "../sim/leverage.js";
import { initialMarginOfHeld } from "../sim/margin.js";
import { QUIET_SCENARIO } from "../sim/scenario.js";
import { startSimulator } from "../sim/startSimulator.js";
import { DEFAULT_SYMBOLS, type SymbolSpec } from "../sim/symbols.js";
import { INSUFFICIENT_MARGIN_CODE } from "../venue/failureTable.js";
import type { ProcessGroup } from "./children.js";
import { startDaemon } from "./daemonRunner.js";
import { bestFeeThatFits, marginItems } from "./marginBest.js";
import { round2, round4 } from "./stats.js";

const USAGE = 0.9;
/** The claims have settled once none came for this long. */
const QUIET_MS = 3_000;
const TIMEOUT_MS = 60_000;

interface CascadeSetup {
  collateral: number;
  leverage: number;
  account?: SimAccountMargin;
  symbols?: readonly SymbolSpec[];
  cascade: { size: number; symbols: string[]; notional: [number, number] };
  /** The yardstick: per symbol of high-risk liquidations (true), or each liquidation whole. */
  perSymbolBest: boolean;
}

const MARGIN_CASCADE: CascadeSetup = {
  collateral: 20_000,
  leverage: 10,
  cascade: {
    size: 26,
    symbols: ["PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC", "PERP_WIF_USDC", "PERP_EUR_USDC"],
    notional: [5_000, 25_000],
  },
  perSymbolBest: false,
};

export const LEVERAGE_CASCADE: CascadeSetup = {
  collateral: 2_000,
  leverage: 10,
  account: LEVERAGE_CASCADE_ACCOUNT,
  symbols: [...DEFAULT_SYMBOLS, ...LEVERAGE_CASCADE_SYMBOLS],
  cascade: {
    size: 30,
    symbols: ["PERP_ETH_USDC", "PERP_NEAR_USDC", "PERP_ARB_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC", "PERP_WIF_USDC"],
    notional: [1_000, 12_000],
  },
  perSymbolBest: true,
};

export interface MarginCascadeResult {
  liquidations: number;
  /** Initial margin the cascade would take whole ÷ the budget (max_margin_usage × collateral). */
  budgets: number;
  bestFee: number;
  capturedFee: number;
  /** capturedFee ÷ bestFee. */
  ratio: number;
  claims: number;
  /** Claims the venue refused for margin (goal 0). */
  marginRefusals: number;
  /** The venue's initial margin of what the account holds ÷ its total collateral, after (goal ≤ 0.9). */
  usage: number;
  /** From the cascade's push to the last claim the venue applied, ms. */
  pushToLastClaimMs: number;
}

export async function measureMarginCascade(
  group: ProcessGroup,
  cli: string,
  workDir: string,
  setup: CascadeSetup = MARGIN_CASCADE,
  name = "margin",
): Promise<MarginCascadeResult> {
  const sim = await startSimulator({
    port: 0,
    seed: 26,
    collateral: setup.collateral,
    maxLeverage: setup.leverage,
    ...(setup.account !== undefined ? { accountMargin: setup.account } : {}),
    ...(setup.symbols !== undefined ? { symbols: setup.symbols } : {}),
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
      name,
    );
    try {
      const budget = USAGE * setup.collateral;
      const account = accountMargin(sim.core.accounts.get(sim.accountId) as SimAccount);
      const pushedAt = sim.core.now();
      const c = setup.cascade;
      const ids = sim.core.cascade(c.size, { symbols: c.symbols, side: 1, notional: c.notional });
      // The venue's book as the cascade opened it: the push has not reached the daemon yet.
      const items = marginItems(sim.core, ids, account, setup.perSymbolBest);
      // Every request (claims() holds the applied ones only: a refusal would never be counted).
      const mine = () => sim.core.claimRequests().filter((x) => x.accountId === sim.accountId);
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
      const applied = mine().filter((x) => x.code === 0);
      const captured = applied.reduce((s, x) => s + x.transfers.reduce((a, t) => a + t.absLiquidatorFee, 0), 0);
      // The venue credits each claim's fee to the collateral: the budget grows by 0.9 of the fee earned.
      const best = bestFeeThatFits(items, budget, USAGE);
      const im = initialMarginOfHeld(
        sim.core.positionsOf(sim.accountId),
        (s) => sim.core.symbols.get(s),
        (s) => sim.core.mark(s),
        account,
      );
      return {
        liquidations: ids.length,
        budgets: round2(items.reduce((s, i) => s + i.margin, 0) / budget),
        bestFee: round2(best),
        capturedFee: round2(captured),
        ratio: best > 0 ? round4(captured / best) : Number.NaN,
        claims: applied.length,
        marginRefusals: mine().filter((x) => x.code === INSUFFICIENT_MARGIN_CODE).length,
        usage: round4(im / sim.core.trading.totalCollateral(sim.accountId)),
        pushToLastClaimMs: applied.length === 0 ? Number.NaN : Math.max(...applied.map((x) => x.decidedAt)) - pushedAt,
      };
    } finally {
      await daemon.stop();
    }
  } finally {
    await sim.close();
  }
}
