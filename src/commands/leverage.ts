/**
 * `liquidator leverage [--config FILE] [--json] [--set-max | --set N] [--symbol S]` (README "Commands",
 * docs/margin.md, docs/protocol.md §10.1): each allowed symbol's leverage setting, the venue's maximum, and the initial
 * margin one `max_claim_notional` claim needs at each; `--set-max` / `--set N` change it, in one
 * `POST /v1/client/leverages` (the venue allows 5 per 60 s): without `--symbol` every symbol at once
 * (each to min(N, its maximum)), with it that symbol alone. Exit 0; 1 when the venue refuses the
 * change (or a read fails); 78 on an invalid config.
 */
import { parseArgs } from "node:util";
import { EXIT_FAILURE, UsageError } from "../errors.js";
import { type LeverageState, readLeverageState, setMaxLeverage } from "../preflight/leverageRead.js";
import { VenueError } from "../venue/errors.js";
import type { SetLeverageRequest } from "../venue/leverageSchemas.js";
import type { Command, CommandIO } from "./command.js";
import { withVenue } from "./openVenue.js";

const USAGE = `usage: liquidator leverage [--config FILE] [--json] [--set-max | --set N] [--symbol S]

The account's leverage per allowed symbol (docs/protocol.md §10: leverage is set per symbol), the venue's
maximum for it, and the initial margin one max_claim_notional claim needs at each. A symbol below
its maximum needs more margin per claim than it must: a cascade fills the margin budget sooner.

  --config FILE  config file (default: LIQUIDATOR_CONFIG, else built-in defaults = simulated venue)
  --json         one JSON object {venue_max, account_max_leverage, symbols:[…], set?}
  --set-max      raise every symbol to its maximum, in one call (--symbol: that symbol only)
  --set N        set every symbol to min(N, its maximum) (--symbol: that symbol to N), N in 1..100
  --symbol S     show, or change, this symbol only
  -h, --help     this text
Exit status 0; 1 when the venue refuses the change; 78 on an invalid config.
`;

const round = (x: number) => Math.round(x * 100) / 100;

function jsonOf(state: LeverageState) {
  return {
    venue_max: state.venueMax ?? null,
    account_max_leverage: state.settings.defaultLeverage ?? null,
    symbols: state.lines.map((l) => ({
      symbol: l.symbol,
      leverage: l.leverage ?? null,
      max: l.max ?? null,
      below_max: l.belowMax,
      claim_notional: round(l.claimNotional),
      margin_at_setting: round(l.marginAtSetting),
      margin_at_max: l.marginAtMax === undefined ? null : round(l.marginAtMax),
    })),
  };
}

function leverageTable(state: LeverageState): string {
  const head = ["symbol", "leverage", "max", "claim notional", "margin at setting", "margin at max", ""];
  const rows = state.lines.map((l) => [
    l.symbol,
    l.leverage === undefined ? "?" : `${l.leverage}×`,
    l.max === undefined ? "?" : `${l.max}×`,
    String(round(l.claimNotional)),
    round(l.marginAtSetting).toFixed(2),
    l.marginAtMax === undefined ? "?" : round(l.marginAtMax).toFixed(2),
    l.belowMax ? "below max" : "",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 || i === r.length - 1 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join("  ")
      .trimEnd();
  const below = state.lines.filter((l) => l.belowMax).length;
  const foot =
    below === 0 ? "every symbol at its maximum" : `${below} symbol(s) below their maximum: liquidator leverage --set-max raises them`;
  return `${[line(head), ...rows.map(line)].join("\n")}\n${foot}${state.venueMax !== undefined ? ` (venue max ${state.venueMax}×)` : ""}\n`;
}

function leverageOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100) throw new UsageError("--set takes an integer leverage from 1 to 100");
  return n;
}

export const leverage: Command = async (args, io: CommandIO) => {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: "string", short: "c" },
      json: { type: "boolean" },
      "set-max": { type: "boolean" },
      set: { type: "string" },
      symbol: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const n = leverageOption(values.set);
  if (n !== undefined && values["set-max"] === true) throw new UsageError("--set-max and --set N: give one");
  const symbol = values.symbol;
  return withVenue(values.config, io, async (venue, loaded) => {
    const policy = loaded.config.policy;
    const before = await readLeverageState(venue.rest, policy, io.signal, symbol);
    if (symbol !== undefined && before.lines.length === 0) throw new UsageError(`--symbol ${symbol}: the venue lists no such symbol`);
    if (n === undefined && values["set-max"] !== true) {
      io.stdout.write(values.json ? `${JSON.stringify(jsonOf(before))}\n` : leverageTable(before));
      return 0;
    }
    const target = n ?? (symbol !== undefined ? (before.lines[0]?.max ?? setMaxLeverage(before)) : setMaxLeverage(before));
    const request: SetLeverageRequest = symbol === undefined ? { leverage: target } : { symbol, leverage: target };
    try {
      await venue.rest.leverage.setLeverage(request, { signal: io.signal });
    } catch (err) {
      if (!(err instanceof VenueError)) throw err;
      const text = `the venue refused ${JSON.stringify(request)}: ${err.venueCode} ${err.message}`;
      if (values.json)
        io.stdout.write(
          `${JSON.stringify({ ...jsonOf(before), set: { request, refused: { code: err.venueCode, message: err.message } } })}\n`,
        );
      io.stderr.write(`liquidator leverage: ${text}\n`);
      return EXIT_FAILURE;
    }
    const after = await readLeverageState(venue.rest, policy, io.signal, symbol, before.clientInfo);
    if (values.json) io.stdout.write(`${JSON.stringify({ ...jsonOf(after), set: { request } })}\n`);
    else io.stdout.write(`set ${JSON.stringify(request)}\n${leverageTable(after)}`);
    return 0;
  });
};
