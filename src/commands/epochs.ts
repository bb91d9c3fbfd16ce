/**
 * `liquidator epochs`: the trading-rewards epochs (docs/protocol.md §A.4.1, §A.4.2), epoch_info joined with
 * epoch_data by epoch_id, one row per epoch.
 */
import { parseArgs } from "node:util";
import { UsageError } from "../errors.js";
import type { EpochData, EpochDataRow, EpochInfo, EpochInfoRow } from "../venue/restSchemas.js";
import { skippedRowsOf } from "../venue/tolerantRows.js";
import type { Command } from "./command.js";
import { withVenue } from "./openVenue.js";
import { type Column, isoTime, OUTPUT_OPTIONS, outputFormat, render } from "./output.js";

const USAGE = `usage: liquidator epochs [--config FILE] [--info | --data] [--json | --csv]

Trading-rewards epochs: parameters (epoch_info) joined with scores and rewards (epoch_data) by
epoch_id, one row per epoch, then the current epoch and the totals released.

  --config FILE  config file (default: LIQUIDATOR_CONFIG, else built-in defaults = simulated venue)
  --info         only the epoch parameters (epoch_info)
  --data         only the scores and rewards (epoch_data)
  --json         rows as JSON (times in ms)
  --csv          rows as CSV, RFC 4180 (times in ms)
  -h, --help     this text
`;

interface EpochRow {
  epoch_id: number;
  info?: EpochInfoRow;
  data?: EpochDataRow;
}

/** Full outer join by epoch_id, ascending: an epoch known to only one endpoint still gets a row. */
function joinEpochs(info: EpochInfo | undefined, data: EpochData | undefined): EpochRow[] {
  const byId = new Map<number, EpochRow>();
  const row = (id: number): EpochRow => {
    let r = byId.get(id);
    if (r === undefined) {
      r = { epoch_id: id };
      byId.set(id, r);
    }
    return r;
  };
  for (const r of info?.rows ?? []) row(r.epoch_id).info = r;
  for (const r of data?.rows ?? []) row(r.epoch_id).data = r;
  return [...byId.values()].sort((a, b) => a.epoch_id - b.epoch_id);
}

type C = Column<EpochRow>;
const idColumn: C = { key: "epoch_id", value: (r) => r.epoch_id };
const infoColumns: C[] = [
  { key: "start_time", header: "start", value: (r) => r.info?.start_time, text: (r) => isoTime(r.info?.start_time) },
  { key: "end_time", header: "end", value: (r) => r.info?.end_time, text: (r) => isoTime(r.info?.end_time) },
  { key: "epoch_token", header: "token", value: (r) => r.info?.epoch_token ?? r.data?.epoch_token },
  { key: "max_reward_amount", header: "max_reward", value: (r) => r.info?.max_reward_amount },
  { key: "power_fees_paid_major", value: (r) => r.info?.power_fees_paid_major, table: false },
  { key: "power_fees_paid_alts", value: (r) => r.info?.power_fees_paid_alts, table: false },
  { key: "power_staked_major", value: (r) => r.info?.power_staked_major, table: false },
  { key: "power_staked_alts", value: (r) => r.info?.power_staked_alts, table: false },
  { key: "k_constant_major", value: (r) => r.info?.k_constant_major, table: false },
  { key: "k_constant_alts", value: (r) => r.info?.k_constant_alts, table: false },
];
const dataColumns: C[] = [
  { key: "reward_status", header: "status", value: (r) => r.data?.reward_status },
  { key: "r_major", value: (r) => r.data?.r_major },
  { key: "r_alts", value: (r) => r.data?.r_alts },
  { key: "total_trader_score_major", header: "score_major", value: (r) => r.data?.total_trader_score_major },
  { key: "total_trader_score_alts", header: "score_alts", value: (r) => r.data?.total_trader_score_alts },
];
const dataTokenColumn: C = { key: "epoch_token", header: "token", value: (r) => r.data?.epoch_token };

function epochColumns(only: "info" | "data" | undefined): C[] {
  if (only === "info") return [idColumn, ...infoColumns];
  if (only === "data") return [idColumn, dataTokenColumn, ...dataColumns];
  return [idColumn, ...infoColumns, ...dataColumns];
}

export const epochs: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      config: { type: "string" },
      info: { type: "boolean" },
      data: { type: "boolean" },
      ...OUTPUT_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (values.info && values.data) throw new UsageError("--info and --data are exclusive (omit both for the joined view)");
  const only = values.info ? "info" : values.data ? "data" : undefined;
  const format = outputFormat(values);

  return withVenue(values.config, io, async ({ rest }) => {
    const signal = io.signal;
    const [info, data] = await Promise.all([
      only === "data" ? undefined : rest.epochInfo({ signal }),
      only === "info" ? undefined : rest.epochData({ signal }),
    ]);
    io.stdout.write(render(format, epochColumns(only), joinEpochs(info, data)));
    const summary: string[] = [`current epoch: ${data?.current_epoch ?? info?.current_epoch ?? "?"}`];
    if (data) {
      summary.push(
        `total released: ${data.total_released_trading_rewards_native} native, ${data.total_released_trading_rewards_escrow} escrow`,
      );
    }
    // Rows the venue sent that could not be read are left out (tolerantRows.ts): say so, not a silent gap.
    for (const [name, payload] of [
      ["epoch_info", info],
      ["epoch_data", data],
    ] as const) {
      const left = skippedRowsOf(payload).length;
      if (left > 0) summary.push(`${left} row(s) of ${name} could not be read and are not shown`);
    }
    // The rows alone go to stdout in machine formats, so a pipe into jq or a CSV reader stays clean.
    (format === "table" ? io.stdout : io.stderr).write(`${format === "table" ? "\n" : ""}${summary.join("\n")}\n`);
    return 0;
  });
};
