/**
 * `liquidator campaign`: campaign statistics of one user (docs/protocol.md §A.2.4, §A.4.3; query parameters
 * per docs/protocol.md §4).
 */
import { parseArgs } from "node:util";
import { SYMBOL_PATTERN } from "../config/schema.js";
import { UsageError } from "../errors.js";
import type { CampaignUser, CampaignUserQuery } from "../venue/restSchemas.js";
import type { Command } from "./command.js";
import { withVenue } from "./openVenue.js";
import { csvField, isoTime, OUTPUT_OPTIONS, outputFormat, renderFields, toJson } from "./output.js";

const USAGE = `usage: liquidator campaign --campaign-id N (--account-id ID | --address ADDR) [options]

Campaign statistics of one user.

  --campaign-id N   the campaign (required)
  --account-id ID   the user's account id   } exactly one of these two; with the embedded
  --address ADDR    the user's address      } simulated venue, the default is its own account
  --order-tag TAG   only orders with this tag
  --broker-id ID    only activity through this broker
  --symbol SYMBOL   only this symbol (PERP_<BASE>_<QUOTE>)
  --config FILE     config file (default: LIQUIDATOR_CONFIG, else built-in defaults = simulated venue)
  --json | --csv    machine-readable output (times in ms)
  -h, --help        this text
`;

/** docs/protocol.md §A.2.4 in order; `time` fields are shown as ISO times in the table. */
const FIELDS: readonly { key: keyof CampaignUser; time?: boolean }[] = [
  { key: "volume" },
  { key: "filled_order_count" },
  { key: "updated_time", time: true },
  { key: "pnl" },
  { key: "total_deposit_amount" },
  { key: "total_withdrawal_amount" },
  { key: "start_account_value" },
  { key: "end_account_value" },
  { key: "new_invited_referee" },
  { key: "new_traded_referee" },
  { key: "total_staked_native" },
  { key: "total_staked_esnative" },
];

function nonEmpty(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (v.trim() === "") throw new UsageError(`--${name} must not be empty`);
  return v;
}

function parseCampaignId(text: string | undefined): number {
  if (text === undefined) throw new UsageError("--campaign-id N is required");
  if (!/^\d{1,15}$/.test(text)) throw new UsageError(`--campaign-id must be a non-negative integer, got '${text}'`);
  return Number(text);
}

export const campaign: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      "campaign-id": { type: "string" },
      "account-id": { type: "string" },
      address: { type: "string" },
      "order-tag": { type: "string" },
      "broker-id": { type: "string" },
      symbol: { type: "string" },
      config: { type: "string" },
      ...OUTPUT_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const format = outputFormat(values);
  const campaignId = parseCampaignId(values["campaign-id"]);
  const accountId = nonEmpty("account-id", values["account-id"]);
  const address = nonEmpty("address", values.address);
  if (accountId !== undefined && address !== undefined) throw new UsageError("give exactly one of --account-id / --address, not both");
  const symbol = nonEmpty("symbol", values.symbol);
  if (symbol !== undefined && !SYMBOL_PATTERN.test(symbol))
    throw new UsageError(`--symbol must look like PERP_<BASE>_<QUOTE>, got '${symbol}'`);

  return withVenue(values.config, io, async (venue) => {
    const query: CampaignUserQuery = { campaign_id: campaignId };
    if (address !== undefined) query.address = address;
    else if (accountId !== undefined) query.account_id = accountId;
    else if (venue.simulated) {
      query.account_id = venue.accountId;
      io.stderr.write(`liquidator campaign: no --account-id / --address given; showing the simulated venue's account ${venue.accountId}\n`);
    } else {
      throw new UsageError("give exactly one of --account-id ID / --address ADDR");
    }
    const orderTag = nonEmpty("order-tag", values["order-tag"]);
    const brokerId = nonEmpty("broker-id", values["broker-id"]);
    if (orderTag !== undefined) query.order_tag = orderTag;
    if (brokerId !== undefined) query.broker_id = brokerId;
    if (symbol !== undefined) query.symbol = symbol;

    const stats = await venue.rest.campaignUser(query, { signal: io.signal });
    if (format === "json") {
      io.stdout.write(toJson(Object.fromEntries(FIELDS.map((f) => [f.key, stats[f.key]]))));
    } else if (format === "csv") {
      const header = FIELDS.map((f) => csvField(f.key)).join(",");
      const row = FIELDS.map((f) => csvField(stats[f.key])).join(",");
      io.stdout.write(`${header}\r\n${row}\r\n`);
    } else {
      const who = query.account_id !== undefined ? `account ${query.account_id}` : `address ${query.address ?? ""}`;
      io.stdout.write(`campaign ${campaignId}, ${who}\n\n`);
      io.stdout.write(renderFields(FIELDS.map((f) => [f.key, f.time ? isoTime(stats[f.key]) : String(stats[f.key])])));
    }
    return 0;
  });
};
