/**
 * The account's margin settings as `simulate` and `backtest` take them (docs/protocol.md §10):
 * `--leverage N` (every symbol) or `--leverage SYMBOL=N` (one), `--imr-factor SYMBOL=F` (the account's
 * own) and `--max-notional SYMBOL=Q`, each repeatable. A malformed value is a usage error (exit 64).
 */
import { SYMBOL_PATTERN } from "../engine/types.js";
import { UsageError } from "../errors.js";

export interface MarginFlags {
  /** `--leverage N`: every symbol not named. */
  leverage?: number;
  leverages: Record<string, number>;
  imrFactor: Record<string, number>;
  maxNotional: Record<string, number>;
}

/** The option declarations for node:util parseArgs. */
export const MARGIN_FLAG_OPTIONS = {
  leverage: { type: "string", multiple: true },
  "imr-factor": { type: "string", multiple: true },
  "max-notional": { type: "string", multiple: true },
} as const;

export const MARGIN_FLAGS_HELP = `  --leverage N | SYMBOL=N   the account's leverage: of every symbol, or of one (repeatable; docs/protocol.md §10)
  --imr-factor SYMBOL=F     the account's own imr_factor of a symbol (repeatable)
  --max-notional SYMBOL=Q   the account's max_notional of a symbol, quote (repeatable)
`;

function number(flag: string, text: string, ok: (n: number) => boolean, what: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text) || !ok(n)) throw new UsageError(`--${flag} ${text}: ${what}`);
  return n;
}

function perSymbol(flag: string, values: readonly string[] | undefined, ok: (n: number) => boolean, what: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf("=");
    const symbol = v.slice(0, eq);
    if (eq < 0 || !SYMBOL_PATTERN.test(symbol)) throw new UsageError(`--${flag} ${v}: expected SYMBOL=VALUE, e.g. PERP_ETH_USDC=…`);
    out[symbol] = number(flag, v.slice(eq + 1), ok, what);
  }
  return out;
}

/** The flags given, or undefined when none was. */
export function marginFlags(values: { leverage?: string[]; "imr-factor"?: string[]; "max-notional"?: string[] }): MarginFlags | undefined {
  const lev = (n: number) => Number.isInteger(n) && n >= 1 && n <= 100;
  const levWhat = "a leverage is an integer from 1 to 100";
  let leverage: number | undefined;
  const named: string[] = [];
  for (const v of values.leverage ?? []) {
    if (v.includes("=")) named.push(v);
    else leverage = number("leverage", v, lev, levWhat);
  }
  const flags: MarginFlags = {
    ...(leverage !== undefined ? { leverage } : {}),
    leverages: perSymbol("leverage", named, lev, levWhat),
    imrFactor: perSymbol("imr-factor", values["imr-factor"], (n) => Number.isFinite(n) && n >= 0 && n < 1, "a factor in [0, 1)"),
    maxNotional: perSymbol("max-notional", values["max-notional"], (n) => Number.isFinite(n) && n > 0, "a positive notional"),
  };
  const given =
    leverage !== undefined ||
    Object.keys(flags.leverages).length + Object.keys(flags.imrFactor).length + Object.keys(flags.maxNotional).length > 0;
  return given ? flags : undefined;
}
