/**
 * The `policy` section: the risk policy the engine compiles (engine/riskPolicy.ts). Every key but
 * `dry_run` and `symbols` can be overridden per symbol under `per_symbol.<SYMBOL>`. SIGHUP re-reads it.
 * The `unwind` section: how claimed positions are closed (daemon/unwind/unwinder.ts).
 */
import { z } from "zod";
import { SYMBOL_PATTERN } from "../engine/types.js";
import { bps, doc, durationMs, fee, list, positiveNotional, section, symbol } from "./schemaParts.js";

const DESCRIPTIONS = {
  max_claim_notional: "largest notional (quote, at mark) one claim may take; the ratio is cut to fit",
  max_total_exposure: "cap on the absolute notional of all positions held plus claims in flight",
  min_fee: "smallest expected liquidator fee (quote) worth a claim",
  limit_price_slippage_bps: "`limit_price = mark × (1 ± bps/10⁴)`, quantised to the tick in the safe direction",
  max_mark_age_ms: "a symbol whose mark is older is not claimed",
  expected_unwind_cost_bps:
    "expected cost of getting flat (taker fee + slippage allowance), bps of notional; `min_fee` is compared with the fee net of it (0: the gross fee)",
} as const;

// `PERP_BTC_USDC:` with every override commented out is null: no overrides, like an empty section.
const symbolOverrides = section({
  max_claim_notional: doc(positiveNotional.optional(), DESCRIPTIONS.max_claim_notional),
  max_total_exposure: doc(positiveNotional.optional(), DESCRIPTIONS.max_total_exposure),
  min_fee: doc(fee.optional(), DESCRIPTIONS.min_fee),
  limit_price_slippage_bps: doc(bps.optional(), DESCRIPTIONS.limit_price_slippage_bps),
  max_mark_age_ms: doc(durationMs.optional(), DESCRIPTIONS.max_mark_age_ms),
  expected_unwind_cost_bps: doc(bps.optional(), DESCRIPTIONS.expected_unwind_cost_bps),
});

export const policySchema = section({
  dry_run: doc(z.boolean().default(false), "`1`/`true`: decide and journal, never send a claim", "LIQUIDATOR_DRY_RUN"),
  max_claim_notional: doc(positiveNotional.default(50_000), DESCRIPTIONS.max_claim_notional, "LIQUIDATOR_MAX_CLAIM_NOTIONAL"),
  max_total_exposure: doc(positiveNotional.default(250_000), DESCRIPTIONS.max_total_exposure, "LIQUIDATOR_MAX_TOTAL_EXPOSURE"),
  min_fee: doc(fee.default(1), DESCRIPTIONS.min_fee, "LIQUIDATOR_MIN_FEE"),
  limit_price_slippage_bps: doc(bps.default(50), DESCRIPTIONS.limit_price_slippage_bps),
  max_mark_age_ms: doc(durationMs.default(3000), DESCRIPTIONS.max_mark_age_ms),
  expected_unwind_cost_bps: doc(bps.default(0), DESCRIPTIONS.expected_unwind_cost_bps),
  max_margin_usage: doc(
    z.number().gt(0).max(1).default(0.5),
    "account-wide (not per symbol): initial margin of everything held plus claims in flight, after the claim, as a share of the account's total collateral; a claim that would pass it is cut to fit, else skipped with reason `margin`",
    "LIQUIDATOR_MAX_MARGIN_USAGE",
  ),
  min_free_collateral: doc(
    fee.default(0),
    "account-wide (not per symbol): free collateral (quote) that must remain after a claim; a claim that would leave less is cut to fit, else skipped with reason `margin`",
    "LIQUIDATOR_MIN_FREE_COLLATERAL",
  ),
  extra_liquidation_ratio: doc(
    z.number().min(0).max(1).default(0),
    "account-wide (not per symbol): when a claim takes the whole liquidation (ratio 1), also ask for up to this fraction more if the venue's live quantity has grown since the push (`extra_liquidation_ratio`, docs/protocol.md §10.2); max_claim_notional, the exposure caps and margin are sized for the extra too; 0: never",
  ),
  symbols: section({
    allow: doc(list(symbol), "symbols to claim (empty = every symbol)"),
    deny: doc(list(symbol), "symbols never to claim (deny wins)"),
  }),
  per_symbol: doc(
    z.preprocess(
      (v) => (v === null || v === undefined ? {} : v),
      z.record(
        z.string().regex(SYMBOL_PATTERN, { error: "is not a venue symbol; expected PERP_<BASE>_<QUOTE> in capitals, e.g. PERP_BTC_USDC" }),
        symbolOverrides,
      ),
    ),
    "per-symbol overrides of the keys above",
  ),
});

const symbolKey = z
  .string()
  .regex(SYMBOL_PATTERN, { error: "is not a venue symbol; expected PERP_<BASE>_<QUOTE> in capitals, e.g. PERP_BTC_USDC" });

const UNWIND = {
  max_slippage_bps: "every unwind order is IOC, reduce-only, priced no worse than mark × (1 ∓ bps/10⁴) on the closing side",
  max_order_notional: "largest notional (quote, at mark) of one unwind order; a larger position is closed in slices",
} as const;

export const unwindSchema = section({
  mode: doc(
    z.enum(["immediate", "off"]).default("immediate"),
    "`immediate` (default): close every position a claim assigns with reduce-only orders; `off`: keep them",
    "LIQUIDATOR_UNWIND_MODE",
  ),
  scope: doc(
    z.enum(["claimed", "all"]).default("claimed"),
    "`claimed` (default): close only what claims assigned and is not unwound yet, per symbol and margin mode; positions no claim explains (the operator's own) are reported (`liquidator_positions_unexplained`) and left alone. `all`: close every position on the account (keeps it flat)",
    "LIQUIDATOR_UNWIND_SCOPE",
  ),
  max_slippage_bps: doc(bps.default(50), UNWIND.max_slippage_bps),
  max_order_notional: doc(positiveNotional.default(25_000), UNWIND.max_order_notional),
  hold: doc(list(symbol), "symbols never unwound (kept as inventory; they still count against policy.max_total_exposure)"),
  per_symbol: doc(
    z.preprocess(
      (v) => (v === null || v === undefined ? {} : v),
      z.record(
        symbolKey,
        section({
          max_slippage_bps: doc(bps.optional(), UNWIND.max_slippage_bps),
          max_order_notional: doc(positiveNotional.optional(), UNWIND.max_order_notional),
        }),
      ),
    ),
    "per-symbol overrides of max_slippage_bps and max_order_notional",
  ),
});
