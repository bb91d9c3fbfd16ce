/** A dotted config key, `policy.min_fee`, `policy.per_symbol.PERP_BTC_USDC.min_fee` (`--set`, `shadow.variants[].set`). */
export const OVERRIDE_KEY = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;
