/**
 * `liquidator preflight [--config FILE] [--json] [--probe-orders]` (README "Commands", "Going live"): asks
 * the configured venue everything the daemon will rely on, moves no money, one line per check.
 * Exit 0 when no check failed, 1 when one did, 78 on an invalid config (thrown before any I/O).
 */
import { parseArgs } from "node:util";
import { connectVenue } from "../app/venueConnection.js";
import { loadConfig } from "../config/loadConfig.js";
import { EXIT_FAILURE } from "../errors.js";
import type { CheckResult } from "../preflight/check.js";
import { runPreflight } from "../preflight/runPreflight.js";
import type { Command } from "./command.js";

const HELP = `usage: liquidator preflight [--config FILE] [--json] [--probe-orders]
  asks the configured venue everything the daemon relies on and prints one line per check
  (pass, warn or fail, what was seen, how to fix it): config, clock, rest, symbols, public_stream,
  private_stream, key, account, leverage, claim_probe, order_lookup_probe, and with --probe-orders
  order_probe. A warn says whether it is safe to go on. Moves no money: the claim probe names an id
  that cannot exist (in each claim form), the lookup an unused order id.
  Exit status 0 when no check failed, 1 when one did, 78 on an invalid config.
  --config FILE    config file (default: $LIQUIDATOR_CONFIG, else built-in defaults = simulated venue)
  --json           one JSON object {"venue":{…observed…},"checks":[{name,status,detail,hint}]}
                   (attach it to a bug report: it holds no secret)
  --probe-orders   also rest a post-only order far below the market, then cancel it
`;

function line(r: CheckResult): string {
  return `${r.status.padEnd(4)}  ${r.name.padEnd(18)} ${r.detail}${r.status !== "pass" && r.hint ? `\n      ${"".padEnd(18)} hint: ${r.hint}` : ""}\n`;
}

export const preflight: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: "string", short: "c" },
      json: { type: "boolean" },
      "probe-orders": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const loaded = await loadConfig({ path: values.config ?? io.env.LIQUIDATOR_CONFIG, env: io.env });
  const venue = await connectVenue(loaded);
  if (venue.simulated) io.stderr.write("liquidator preflight: venue.mode is simulator: asking the embedded simulated venue\n");
  try {
    const streamTimeout = Number(io.env.LIQUIDATOR_PREFLIGHT_STREAM_TIMEOUT_MS);
    const report = await runPreflight({
      loaded,
      venue,
      probeOrders: values["probe-orders"] === true,
      signal: io.signal,
      ...(Number.isFinite(streamTimeout) && streamTimeout > 0 ? { streamTimeoutMs: streamTimeout } : {}),
      ...(values.json ? {} : { onResult: (r: CheckResult) => io.stdout.write(line(r)) }),
    });
    const failed = report.checks.filter((c) => c.status === "fail").map((c) => c.name);
    if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
    else io.stdout.write(failed.length === 0 ? "preflight: no check failed\n" : `preflight: failed: ${failed.join(", ")}\n`);
    return failed.length === 0 ? 0 : EXIT_FAILURE;
  } finally {
    await venue.close();
  }
};
