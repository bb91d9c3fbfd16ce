/**
 * `liquidator backtest [--capture] FILE… [--config FILE]… [--set KEY=V1,V2,…]… [--json [--ids]|--csv] [--html FILE]`:
 * replays captures through the daemon's decision code, one row per config variant (docs/policy-lab.md).
 * Needs no secret and no network.
 */
import { stat, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { UsageError } from "../errors.js";
import { preparedPath } from "../lab/prepared/preparedCapture.js";
import { backtestInJobs } from "../lab/replay/backtestJobs.js";
import { scoreForecastFiles } from "../lab/replay/forecastScore.js";
import { DEFAULT_LAB_COLLATERAL, type LabAccount } from "../lab/replay/labMargin.js";
import { renderHtml } from "../lab/report/htmlReport.js";
import { buildVariants } from "../lab/sweep/variants.js";
import { renderBacktest } from "./backtestOutput.js";
import type { Command } from "./command.js";
import { MARGIN_FLAG_OPTIONS, MARGIN_FLAGS_HELP, type MarginFlags, marginFlags } from "./marginFlags.js";
import { OUTPUT_OPTIONS, outputFormat } from "./output.js";

const USAGE = `usage: liquidator backtest [--capture] FILE… [--config FILE]… [--set KEY=V1,V2,…]… [--json [--ids]|--csv] [--html FILE]
  Replays captures (liquidator record, state.capture, simulate --capture) through the daemon's own
  decision code; one row per variant: each --config (default: built-in defaults) times the cross
  product of every --set list. A capture holding heatmap polls also gets the heatmap's recall and
  precision (docs/policy-lab.md).
  --lenient            skip lines that are not capture events (counted) instead of stopping
  --latency-ms N       send → answer latency when the capture has no claim answers (default 50)
  --slippage-bps N     assumed unwind fill distance from the mark, against us (default: measured
                       from the recording account's own unwind trades in the capture, else 5)
  --taker-fee-bps N    assumed taker fee of unwind fills (default: measured as above, else 5)
  --collateral N       the account's collateral at the start, quote (default 100000): claims are
                       checked against policy.max_margin_usage / min_free_collateral on it, plus
                       the fees the variant earns, by the daemon's own code
${MARGIN_FLAGS_HELP}                       (the capture does not hold the account's settings; default 10× everywhere)
  --ids                --json lists each variant's claimed ids (claimed_ids); off by default, as a
                       week's sweep holds millions of them
  --sensitivity        replay every variant again at half and twice the claim latency, for the
                       sensitivity table (on with --html; slippage ½× and 2× are always given)
  --jobs N             variants replayed on N threads at once (default: the machine's cores); the
                       output is the same for any N
  --no-prepare         read the captures' JSONL only: neither read nor write the prepared binary
                       form kept beside each capture (FILE.prepared, about 2.5× the capture's size)
                       to make later reads fast; each one written is said on stderr; a daemon's
                       capture folder counts them in state.capture_max_bytes
`;

/** Each prepared file's modification time (ms), or undefined when there is none. */
async function preparedTimes(files: readonly string[]): Promise<(number | undefined)[]> {
  return Promise.all(files.map(async (f) => (await stat(preparedPath(f)).catch(() => undefined))?.mtimeMs));
}

/** The lab's account from the margin flags (labMargin.ts LabAccount). */
function labAccountOption(f: MarginFlags | undefined): { account?: LabAccount } {
  if (f === undefined) return {};
  return {
    account: {
      ...(f.leverage !== undefined ? { leverage: f.leverage } : {}),
      leverages: f.leverages,
      imrFactor: f.imrFactor,
      maxNotional: f.maxNotional,
    },
  };
}

function numberOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a number ≥ 0`);
  return n;
}

export const backtestCommand: Command = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      capture: { type: "string", multiple: true },
      config: { type: "string", multiple: true },
      set: { type: "string", multiple: true },
      html: { type: "string" },
      lenient: { type: "boolean" },
      "latency-ms": { type: "string" },
      "slippage-bps": { type: "string" },
      "taker-fee-bps": { type: "string" },
      collateral: { type: "string" },
      jobs: { type: "string" },
      ids: { type: "boolean" },
      sensitivity: { type: "boolean" },
      "no-prepare": { type: "boolean" },
      ...MARGIN_FLAG_OPTIONS,
      help: { type: "boolean", short: "h" },
      ...OUTPUT_OPTIONS,
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const files = [...(values.capture ?? []), ...positionals];
  if (files.length === 0) throw new UsageError(`no capture given\n${USAGE}`);
  const format = outputFormat(values);
  const variants = await buildVariants(values.config ?? [], values.set ?? []);
  const prepare = values["no-prepare"] !== true;
  const before = prepare ? await preparedTimes(files) : [];
  const jobs = values.jobs === undefined ? availableParallelism() : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError("--jobs must be a whole number ≥ 1");
  const report = await backtestInJobs(
    {
      files,
      variants,
      lenient: values.lenient === true,
      defaultLatencyMs: numberOption("latency-ms", values["latency-ms"], 50),
      slippageBps: values["slippage-bps"] === undefined ? undefined : numberOption("slippage-bps", values["slippage-bps"], 5),
      takerFeeBps: values["taker-fee-bps"] === undefined ? undefined : numberOption("taker-fee-bps", values["taker-fee-bps"], 5),
      collateral: numberOption("collateral", values.collateral, DEFAULT_LAB_COLLATERAL),
      ...labAccountOption(marginFlags(values)),
      ids: values.ids === true,
      sensitivity: values.sensitivity === true || values.html !== undefined,
      prepare,
    },
    jobs,
  );
  if (prepare) {
    // A cache written beside the operator's capture, often larger than it: never without a word.
    const after = await preparedTimes(files);
    for (const [i, file] of files.entries()) {
      if (after[i] === undefined || after[i] === before[i]) continue;
      const bytes = (await stat(preparedPath(file)).catch(() => undefined))?.size ?? 0;
      io.stderr.write(
        `liquidator backtest: wrote ${preparedPath(file)} (${(bytes / 1e6).toFixed(1)} MB), the prepared form of ${file} read instead of it next time; delete it freely, or pass --no-prepare\n`,
      );
    }
  }
  const forecast = await scoreForecastFiles(files, { lenient: values.lenient === true, prepare });
  if (forecast.length > 0) report.forecast = forecast;
  if (values.html !== undefined) await writeFile(values.html, renderHtml(report));
  const out = renderBacktest(format, report);
  io.stdout.write(out.stdout);
  if (out.stderr !== "") io.stderr.write(out.stderr);
  return 0;
};
