/**
 * The account's leverage as the venue states it (docs/protocol.md §10), read for `liquidator leverage` and
 * the preflight `leverage` check: the symbol table (`GET /v1/public/info`), every symbol's setting
 * (`GET /v1/client/leverages`), client info (`max_leverage`, the account's own `imr_factor` and
 * `max_notional`) and the venue's maximum (`GET /v1/public/leverage`), turned into one line per
 * allowed symbol by the engine (engine/leverageView.ts). Read-only; `setLeverage` is the one change.
 */

import type { RiskPolicyInput } from "../config/riskPolicyOf.js";
import { compileRiskPolicy } from "../config/riskPolicyOf.js";
import { AccountBook } from "../engine/accountBook.js";
import { type LeverageLine, leverageLines } from "../engine/leverageView.js";
import { marginParamsOf } from "../engine/margin.js";
import type { MarginSettings } from "../engine/marginSettings.js";
import { SymbolTable } from "../engine/symbolInfo.js";
import { isMissingRoute } from "../venue/keyInfo.js";
import { clientMarginFrom, leverageSettingsFrom, symbolInfoFromRow } from "../venue/mapping.js";
import type { ClientInfo } from "../venue/orderSchemas.js";
import type { RestClient } from "../venue/rest.js";

export interface LeverageState {
  lines: LeverageLine[];
  /** The client info read (its limit is 10 per 60 s: a second read in a row reuses it). */
  clientInfo: ClientInfo;
  /** `max_futures_leverage`, when the venue says it. */
  venueMax: number | undefined;
  settings: MarginSettings;
  /** False when the venue has no `GET /v1/client/leverages` (HTTP 404): settings are client info's only. */
  leveragesRoute: boolean;
}

/**
 * Reads everything; `symbol` narrows the lines to one symbol (allowed or not); `clientInfo`, when
 * given, is used instead of reading it again (the venue allows 10 reads per 60 s).
 */
export async function readLeverageState(
  rest: RestClient,
  policy: RiskPolicyInput,
  signal: AbortSignal,
  symbol?: string,
  clientInfo?: ClientInfo,
): Promise<LeverageState> {
  const opts = { signal };
  const [info, client] = await Promise.all([rest.info(opts), clientInfo ?? rest.clientInfo(opts).then((c) => c.data)]);
  const book = new AccountBook();
  book.setClientMargin(clientMarginFrom(client));
  let leveragesRoute = true;
  const rowMax = new Map<string, number>();
  try {
    const rows = (await rest.leverages(opts)).data.rows;
    book.setLeverages(leverageSettingsFrom(rows));
    for (const r of rows) if (r.max_leverage !== undefined && (r.margin_mode ?? "CROSS") === "CROSS") rowMax.set(r.symbol, r.max_leverage);
  } catch (err) {
    if (!isMissingRoute(err)) throw err;
    leveragesRoute = false;
  }
  let venueMax: number | undefined;
  try {
    venueMax = (await rest.leverage.maxLeverage(opts)).max_futures_leverage;
  } catch (err) {
    if (!isMissingRoute(err)) throw err;
  }
  const { table } = SymbolTable.fromUntrusted(info.rows.map(symbolInfoFromRow));
  const risk = compileRiskPolicy(policy);
  const symbols = [...table.values()]
    .filter((s) => (symbol === undefined ? risk.access(s.symbol) === "allowed" : s.symbol === symbol))
    .map((s) => ({
      symbol: s.symbol,
      pub: marginParamsOf(s),
      maxClaimNotional: risk.limitsFor(s.symbol).maxClaimNotional,
      rowMax: rowMax.get(s.symbol),
    }));
  return { lines: leverageLines(symbols, book.settings, venueMax), clientInfo: client, venueMax, settings: book.settings, leveragesRoute };
}

/**
 * The leverage `--set-max` asks for in one call without `symbol` (every symbol to min(it, its
 * maximum)): the venue's maximum, else the largest symbol maximum known, else 100 (docs/protocol.md §10's range).
 */
export function setMaxLeverage(state: LeverageState): number {
  if (state.venueMax !== undefined) return Math.min(100, Math.floor(state.venueMax));
  const maxes = state.lines.map((l) => l.max).filter((m): m is number => m !== undefined);
  return maxes.length > 0 ? Math.min(100, Math.max(...maxes)) : 100;
}
