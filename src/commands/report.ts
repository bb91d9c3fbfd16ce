/**
 * `liquidator report [--config FILE] [--day YYYY-MM-DD] [--json|--csv|--html FILE]`: the opportunity
 * ledger of a UTC day (docs/report.md), from the journal of the configured store (the file in
 * state.dir, or PostgreSQL read without taking the lease). Reads the state, never the network.
 */
import { writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config/loadConfig.js";
import type { Config } from "../config/schema.js";
import { type JournalRecord, type MarkoutRecord, recordSchema } from "../core/journalRecords.js";
import { REPORT_KINDS } from "../core/opportunityRecords.js";
import { utcDay } from "../engine/utcDay.js";
import { UsageError } from "../errors.js";
import { listSegments } from "../store/journalFiles.js";
import { PgStore } from "../store/postgres/pgStore.js";
import { scanLinesSync } from "../store/scanLines.js";
import type { Command } from "./command.js";
import { journalPath } from "./journalPath.js";
import { OUTPUT_OPTIONS, outputFormat } from "./output.js";
import { renderLedgerHtml } from "./reportHtml.js";
import { buildLedgerReport, DAY_MS, dayStart } from "./reportLedger.js";
import { markoutTable } from "./reportMarkouts.js";
import { reportCsv, reportJson, reportTable } from "./reportOutput.js";

const USAGE = `usage: liquidator report [--config FILE] [--day YYYY-MM-DD] [--json | --csv | --html FILE]

The opportunity ledger of a UTC day: every liquidation the daemon first saw that day and what became
of it (claimed, lost to a rival, skipped with the policy's reason, expired), the liquidator fee at
stake, and totals of value captured and missed by reason, per symbol and per hour. Read from the
journal (the file in state.dir, or PostgreSQL with state.backend: postgres, without taking the lease).

  --config FILE  config file (default: LIQUIDATOR_CONFIG, else built-in defaults)
  --day DAY      the UTC day, YYYY-MM-DD (default: today)
  --json         one object {"day", "liquidations": [...], "totals": {...}}
  --csv          one row per liquidation, RFC 4180
  --html FILE    a self-contained page to FILE (the table still goes to stdout)
  -h, --help     this text
`;

/** Records of a day may be inserted a little before its start by a clock running ahead. */
const CLOCK_MARGIN_MS = 600_000;

/** A line of one of the kinds the report reads (`"t":"<kind>"`). */
const REPORT_LINE = new RegExp(`"t":"(?:${REPORT_KINDS.join("|")})"`);

/**
 * The report's records from the journal at `path`: the history segments begun on or after the day
 * before `since` (a segment holds at most one UTC day), then the tail, line by line.
 */
function fileRecords(path: string, since: number): JournalRecord[] {
  const out: JournalRecord[] = [];
  const take = (line: string): void => {
    // Only the kinds the report reads are parsed: a month of unwind fills is skipped unread.
    if (!REPORT_LINE.test(line)) return;
    try {
      const parsed = recordSchema.safeParse(JSON.parse(line));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // a torn or corrupt line: the daemon's replay reports those
    }
  };
  const from = utcDay(since - 86_400_000);
  for (const seg of listSegments(dirname(path))) if (seg.day >= from) scanLinesSync(seg.path, take);
  scanLinesSync(path, take);
  return out;
}

async function readRecords(config: Config, since: number): Promise<Iterable<JournalRecord>> {
  if (config.state.backend === "postgres") {
    const store = await PgStore.open({ url: config.state.postgres_url, accountId: config.venue.account_id });
    try {
      return await store.ledgerEvents(new Date(since - CLOCK_MARGIN_MS));
    } finally {
      await store.close({ release: false });
    }
  }
  const path = journalPath(config);
  try {
    return fileRecords(path, since);
  } catch (err) {
    throw new UsageError(`cannot read the journal ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export const report: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      config: { type: "string" },
      day: { type: "string" },
      html: { type: "string" },
      ...OUTPUT_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const format = outputFormat(values);
  if (values.html !== undefined && format !== "table") throw new UsageError("--html is exclusive with --json and --csv; pick one");
  const day = values.day ?? new Date().toISOString().slice(0, 10);
  const since = dayStart(day);
  const loaded = await loadConfig({ path: values.config ?? io.env.LIQUIDATOR_CONFIG, env: io.env });
  const records = [...(await readRecords(loaded.config, since))];
  // Markouts of the claims assigned that day, per symbol (the claims are the ledger's `claimed` rows).
  const markouts = markoutTable(
    records.filter((r): r is MarkoutRecord => r.t === "markout" && r.assignedAt >= since && r.assignedAt < since + DAY_MS),
  );
  const ledger = buildLedgerReport(records, day, markouts);
  if (values.html !== undefined) await writeFile(values.html, renderLedgerHtml(ledger));
  io.stdout.write(format === "json" ? reportJson(ledger) : format === "csv" ? reportCsv(ledger) : reportTable(ledger));
  return 0;
};
