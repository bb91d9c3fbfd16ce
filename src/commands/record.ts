/**
 * `liquidator record --out FILE [--minutes N] [--config FILE]`: captures what the configured venue
 * shows a liquidator (public stream and REST snapshots) to a gzip JSONL file, claiming nothing
 * (docs/policy-lab.md). Without `--minutes` it records until SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { connectVenue } from "../app/venueConnection.js";
import { loadConfig } from "../config/loadConfig.js";
import { UsageError } from "../errors.js";
import { recordToFile } from "../lab/capture/recordToFile.js";
import { createVenueLimiters } from "../venue/limiters.js";
import { RestClient } from "../venue/rest.js";
import { Signer } from "../venue/signer.js";
import { SupplyApi } from "../venue/supplyApi.js";
import type { Command } from "./command.js";

const USAGE = `usage: liquidator record --out FILE [--minutes N] [--config FILE]
  Records the venue's public stream (liquidation, markprices), REST snapshots (open list, futures,
  info) and, with forecast.enabled, the heatmap's polls of the venue's platform positions to FILE
  (gzip JSONL, a versioned header line first; its name ends in .gz), claiming nothing. Replay it with
  liquidator backtest. With venue.mode simulator (the default) it records an embedded simulated venue.
`;

/**
 * A capture is gzip JSONL whatever it is called: a name that says otherwise (`x.jsonl`) would make
 * every tool that trusts names (zcat, jq, an editor) read gzip as text. Refused before anything runs.
 */
export function captureFileOption(option: string, value: string): string {
  if (!value.endsWith(".gz"))
    throw new UsageError(
      `--${option} ${JSON.stringify(value)}: a capture is gzip JSONL; name it so it says so (e.g. ${value.replace(/\.jsonl$/, "")}.jsonl.gz)`,
    );
  return value;
}

export function minutesOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || n > 60 * 24 * 366) throw new UsageError("--minutes must be a number > 0");
  return n;
}

export const record: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: "string" },
      minutes: { type: "string" },
      config: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (values.out === undefined) throw new UsageError(`--out FILE is required\n${USAGE}`);
  captureFileOption("out", values.out);
  const minutes = minutesOption(values.minutes);
  const loaded = await loadConfig({ path: values.config ?? io.env.LIQUIDATOR_CONFIG, env: io.env });
  const { venue } = loaded.config;
  const connection = await connectVenue(loaded);
  try {
    const signer = new Signer({ secret: connection.secret, accountId: connection.accountId, headerPrefix: venue.header_prefix });
    const limiters = createVenueLimiters(venue.limits);
    const rest = new RestClient({ baseUrl: connection.baseUrl, signer, timeoutMs: venue.request_timeout_ms, limiters });
    try {
      const stats = await recordToFile(
        {
          file: values.out,
          venue: connection.baseUrl,
          writer: "record",
          minutes,
          rest,
          ...(loaded.config.forecast.enabled
            ? { forecast: { supply: new SupplyApi(rest), intervalMs: loaded.config.forecast.interval_s * 1000 } }
            : {}),
          publicUrl: `${connection.wsUrl}/ws/stream/${connection.accountId}`,
          onError: (_what, err) => io.stderr.write(`liquidator record: ${(err as Error).message}\n`),
        },
        io.signal,
      );
      io.stderr.write(
        `liquidator record: ${stats.events} events written to ${values.out}${stats.dropped > 0 ? `, ${stats.dropped} dropped` : ""}\n`,
      );
    } finally {
      await rest.close();
      await limiters.stop();
    }
  } finally {
    await connection.close();
  }
  return 0;
};
