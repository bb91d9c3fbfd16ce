/**
 * The preflight `leverage` check (docs/margin.md "Leverage: step 0.5 of going live"), between `account` and `claim_probe`:
 * every allowed symbol's leverage setting against the venue's maximum for it (docs/protocol.md §10). A symbol
 * below its maximum is a `warn`, not a failure: the daemon sizes its claims to the setting it reads,
 * so it is safe to go on, but each claim there needs more margin than it must, and a cascade fills
 * the margin budget sooner. The hint is the command that fixes it.
 */
import { type Check, pass, warn } from "./check.js";
import { readLeverageState } from "./leverageRead.js";

/** Lines of the detail that name a symbol below its maximum (the rest are counted). */
const NAMED = 6;

const round = (x: number) => Math.round(x * 100) / 100;

export const leverageCheck: Check = async (ctx) => {
  const state = await readLeverageState(ctx.rest, ctx.loaded.config.policy, ctx.signal, undefined, ctx.clientInfo);
  const below = state.lines.filter((l) => l.belowMax);
  ctx.observed.leverage = {
    leverages_route: state.leveragesRoute,
    venue_max: state.venueMax ?? null,
    account_max_leverage: state.settings.defaultLeverage ?? null,
    symbols: state.lines.slice(0, 100).map((l) => ({
      symbol: l.symbol,
      leverage: l.leverage ?? null,
      max: l.max ?? null,
      claim_notional: round(l.claimNotional),
      margin_at_setting: round(l.marginAtSetting),
      margin_at_max: l.marginAtMax === undefined ? null : round(l.marginAtMax),
    })),
  };
  if (!state.leveragesRoute && state.settings.defaultLeverage === undefined)
    return warn(
      "the venue has no GET /v1/client/leverages and client info gives no max_leverage: every symbol is sized at 1× (its whole notional)",
      "claims need their whole notional in margin; attach --json to a bug report",
      true,
    );
  if (below.length === 0)
    return pass(
      `${state.lines.length} allowed symbol(s) at their maximum leverage${state.venueMax !== undefined ? ` (venue max ${state.venueMax}×)` : ""}`,
    );
  const named = below
    .slice(0, NAMED)
    .map(
      (l) =>
        `${l.symbol} ${l.leverage ?? "?"}× of ${l.max}× (a ${round(l.claimNotional)} claim needs ${round(l.marginAtSetting)}, not ${round(l.marginAtMax ?? 0)})`,
    )
    .join("; ");
  return warn(
    `${below.length} of ${state.lines.length} allowed symbol(s) below their maximum leverage: ${named}${below.length > NAMED ? "; …" : ""}`,
    "raise them: `liquidator leverage --set-max` (one call; or size claims to them with policy.max_claim_notional)",
    true,
  );
};
