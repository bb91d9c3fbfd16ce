/**
 * `liquidator pnl`: profit and loss from the journal (engine/pnlLedger.ts): liquidator fees earned,
 * realized trading P&L of the unwinds, trading fees, net; per claim, symbol or day. Reads the state
 * the configured daemon writes, never the network.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config/loadConfig.js";
import type { Config } from "../config/schema.js";
import { CoreFold } from "../core/coreFold.js";
import { markoutsByClaim } from "../engine/markoutSummary.js";
import { MARKOUT_HORIZONS, type MarkoutHorizon } from "../engine/markouts.js";
import type { PnlLedger, PnlTotals } from "../engine/pnlLedger.js";
import { UsageError } from "../errors.js";
import { logMoney } from "../observe/logMoney.js";
import { readHistory } from "../store/journalFiles.js";
import type { JournalReplay } from "../store/journalReplay.js";
import { PgStore } from "../store/postgres/pgStore.js";
import type { Command } from "./command.js";
import { journalPath } from "./journalPath.js";
import { type Column, money, OUTPUT_OPTIONS, outputFormat, render } from "./output.js";

const USAGE = `usage: liquidator pnl [--config FILE] [--by claim|symbol|day] [--since ISO] [--json | --csv]

Profit and loss of what the daemon claimed and closed, from its journal (the files in state.dir:
history/ then claims.jsonl; or
PostgreSQL with state.backend: postgres, read without taking the lease): liquidator fees
earned, realized trading P&L of the unwind orders, trading fees paid, and net, in quote currency.
Cost method: FIFO lots per claim at the transfer price; once a symbol is flat the totals equal the
venue's average-cost accounting.

Per claim (--by claim) the net also splits into the liquidator fee, the drift (what the mark moved
from the transfer price to the mark each unwind order was priced on) and the unwind cost (slippage
against that mark plus trading fees): net = liquidator_fee + drift - unwind_cost. The markouts
m1s..m300s are the mark 1, 5, 30, 60 and 300 s after the assignment against the transfer price, in
bps, positive = against us (blank: not sampled, e.g. the daemon was down then).

  --config FILE  config file (default: LIQUIDATOR_CONFIG, else built-in defaults)
  --by KEY       claim (default), symbol or day (UTC)
  --since ISO    only claims applied (or days) from this time on, e.g. 2026-11-24 or 2026-11-24T12:00:00Z
  --json         rows as JSON
  --csv          rows as CSV, RFC 4180
  -h, --help     this text
`;

interface Row extends PnlTotals {
  key: string;
  /** Quantity still held from a claim (claim rows). */
  open?: string;
  /** Claim rows: the net's split (engine/pnlLedger.ts `drift`) and the markouts in bps. */
  drift?: number;
  unwindCost?: number;
  markouts?: Partial<Record<MarkoutHorizon, number>>;
}

/** JSON and CSV: quote to 1e-6, never float noise (the journal keeps the exact values). */
const exact = (x: number | undefined): number | undefined => (x === undefined ? undefined : logMoney(x));

function columns(by: string): Column<Row>[] {
  return [
    { key: by, value: (r) => r.key },
    { key: "liquidator_fee", value: (r) => exact(r.liquidatorFee), text: (r) => money(r.liquidatorFee) },
    { key: "trading", value: (r) => exact(r.trading), text: (r) => money(r.trading) },
    { key: "fees", value: (r) => exact(r.fees), text: (r) => money(r.fees) },
    { key: "net", value: (r) => exact(r.net), text: (r) => money(r.net) },
    ...(by === "claim" ? claimColumns() : []),
  ];
}

const bps = (x: number | undefined): string => (x === undefined ? "" : x.toFixed(1));

function claimColumns(): Column<Row>[] {
  return [
    { key: "drift", value: (r) => exact(r.drift), text: (r) => money(r.drift ?? 0) },
    { key: "unwind_cost", value: (r) => exact(r.unwindCost), text: (r) => money(r.unwindCost ?? 0) },
    ...MARKOUT_HORIZONS.map(
      (h): Column<Row> => ({
        key: `markout_${h}_bps`,
        header: `m${h}`,
        value: (r) => (r.markouts?.[h] === undefined ? undefined : Math.round((r.markouts[h] as number) * 100) / 100),
        text: (r) => bps(r.markouts?.[h]),
      }),
    ),
    { key: "open", value: (r: Row) => r.open ?? "" },
  ];
}

function pnlRows(
  ledger: PnlLedger,
  by: "claim" | "symbol" | "day",
  since: number | undefined,
  replay?: Pick<JournalReplay, "markouts">,
): Row[] {
  const sinceDay = since === undefined ? undefined : new Date(since).toISOString().slice(0, 10);
  if (by === "claim") {
    const markouts = markoutsByClaim(replay?.markouts.values() ?? []);
    return ledger
      .claims()
      .filter((c) => sinceDay === undefined || c.day >= sinceDay)
      .map((c) => ({
        key: String(c.claimId),
        liquidatorFee: c.liquidatorFee,
        trading: c.trading,
        fees: c.fees,
        net: c.liquidatorFee + c.trading - c.fees,
        drift: c.drift,
        unwindCost: c.drift - c.trading + c.fees,
        markouts: markouts.get(c.claimId) ?? {},
        open: [...c.open]
          .filter(([, q]) => Math.abs(q) > 1e-9)
          .map(([s, q]) => `${s}:${Number(q.toFixed(9))}`)
          .join(" "),
      }));
  }
  const map = by === "day" ? ledger.byDay() : ledger.bySymbol();
  return [...map]
    .filter(([k]) => by !== "day" || sinceDay === undefined || k >= sinceDay)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, t]) => ({ key, ...t }));
}

/** The journal of the configured store: the file in `state.dir`, or the account's rows in PostgreSQL. */
async function readJournal(config: Config): Promise<JournalReplay> {
  if (config.state.backend === "postgres") {
    // Reading only: the lease is never taken, so a running leader is not disturbed.
    const store = await PgStore.open({ url: config.state.postgres_url, accountId: config.venue.account_id });
    try {
      // Every event, those archived by compaction included: P&L by claim and day needs the history.
      return await store.replay({ history: true });
    } finally {
      await store.close({ release: false });
    }
  }
  const path = journalPath(config);
  try {
    if (!existsSync(path)) throw Object.assign(new Error("no journal"), { code: "ENOENT" });
    // The rotated history (history/ beside the journal, oldest first), then the tail: read line by line.
    return readHistory(dirname(path));
  } catch (err) {
    throw new UsageError(`cannot read the journal ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export const pnl: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      config: { type: "string" },
      by: { type: "string" },
      since: { type: "string" },
      ...OUTPUT_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const by = values.by ?? "claim";
  if (by !== "claim" && by !== "symbol" && by !== "day")
    throw new UsageError(`--by must be claim, symbol or day, got ${JSON.stringify(by)}`);
  const since = values.since === undefined ? undefined : Date.parse(values.since);
  if (since !== undefined && !Number.isFinite(since))
    throw new UsageError(`--since is not a date or time: ${JSON.stringify(values.since)}`);
  const format = outputFormat(values);
  const loaded = await loadConfig({ path: values.config ?? io.env.LIQUIDATOR_CONFIG, env: io.env });
  const replay = await readJournal(loaded.config);
  // The trading core's own fold of every record, each claim's P&L kept (the daemon's, record by record).
  const ledger = (replay.core ?? new CoreFold({ keepClosedClaims: true })).ledger;
  io.stdout.write(render(format, columns(by), pnlRows(ledger, by, since, replay)));
  const t = ledger.totals();
  const summary = `total: liquidator fees ${money(t.liquidatorFee)}, trading ${money(t.trading)}, fees ${money(t.fees)}, net ${money(t.net)}`;
  (format === "table" ? io.stdout : io.stderr).write(`${format === "table" ? "\n" : ""}${summary}\n`);
  return 0;
};
