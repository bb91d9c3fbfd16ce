/**
 * `liquidator simulate [--port N] [--seed N] [--host H] [--flavor spec|real] [--quiet] [--key-file F]...`: the simulated venue alone
 * (README.md "Commands"). The first stdout line is one JSON object telling clients where it is and which
 * key to use; logs go to stderr; SIGINT/SIGTERM close it cleanly.
 */
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { UsageError } from "../errors.js";
import { createLogger } from "../observe/logger.js";
import type { SimKeyInfo } from "../sim/accounts.js";
import { SIM_FLAVORS, type SimFlavor } from "../sim/flavor.js";
import { QUIET_SCENARIO } from "../sim/scenario.js";
import { startSimulator } from "../sim/startSimulator.js";
import { generateKeyPair, publicKeyOf } from "../venue/signer.js";
import type { Command } from "./command.js";
import { MARGIN_FLAG_OPTIONS, MARGIN_FLAGS_HELP, marginFlags } from "./marginFlags.js";
import { captureFileOption, minutesOption } from "./record.js";
import { captureSimulator } from "./simulateCapture.js";
import { captureVirtualMarket } from "./virtualMarket.js";

const USAGE = `usage: liquidator simulate [--port N] [--seed N] [--host H] [--header-prefix P] [--flavor spec|real] [--quiet]
  runs the simulated venue (REST + both streams) on one port until SIGINT/SIGTERM.
  The first stdout line is a JSON object: base_url, ws_url, ws_private_url, account_id, secret,
  order_users, flavor. Logs go to stderr (level from LIQUIDATOR_LOG_LEVEL, default info).
  --port N           TCP port (default 0: a free one)
  --seed N           seed of the market and order history (default random)
  --host H           listen address (default 127.0.0.1)
  --header-prefix P  auth header prefix (default service)
  --flavor F         how the REST answers are spelled: spec (default, as docs/protocol.md writes
                     them) or real, the way the real venue may: the symbol tier and the envelope
                     timestamp as strings, reduce_only null, "data does not exist" (HTTP 500)
                     for an unknown order, lean claim answers, the *_order rewards names, an unknown code for a claim
                     refused by its limit price (the venue's code is unpublished)
  --quiet            no scripted market: marks pushed but still, no liquidations unless made
  --adverse-bps N    a market that runs against each assignment: after every claim by a liquidator,
                     the claimed symbols' marks move N bps against it (for protections; default 0)
  --key-file FILE    also authorize the key whose secret FILE holds (repeatable); FILE is created
                     (mode 0400, a new key) when absent: one per replica sharing the account
  --key-scope S      the scope key_info reports for the liquidator's key (default read,trading)
  --key-expiry-days N  its expiry, days from now (may be negative: an expired key; default 300)
  --collateral N     the liquidator account's collateral, quote (default 1000000)
${MARGIN_FLAGS_HELP}  --capture FILE     record the simulated market (as liquidator record does) to FILE (gzip JSONL:
                     its name ends in .gz), then exit
  --minutes N        with --capture: how long to record (default 5)
  --virtual-hours N  with --capture: instead, run the embedded venue's default market (positions,
                     insurance fund; --seed, default 1) for N hours of virtual time as fast as it
                     computes, recorded as the daemon records it, heatmap polls included; nobody
                     claims (docs/performance.md: the heatmap's recall and precision)
`;

/** The public key of the secret in `file`, after writing a new one there if it is absent. */
async function authorizedKeyFile(file: string): Promise<string> {
  try {
    await writeFile(file, `${generateKeyPair().secret}\n`, { flag: "wx", mode: 0o400 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new UsageError(`--key-file ${file}: ${(err as Error).message}`);
  }
  try {
    return publicKeyOf((await readFile(file, "utf8")).trim());
  } catch (err) {
    throw new UsageError(`--key-file ${file} does not hold a base58 secret: ${(err as Error).message}`);
  }
}

function intOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be an integer in [${min}, ${max}]`);
  }
  return Number(value);
}

function flavorOption(value: string | undefined): SimFlavor | undefined {
  if (value === undefined) return undefined;
  if (!(SIM_FLAVORS as readonly string[]).includes(value)) throw new UsageError(`--flavor must be one of ${SIM_FLAVORS.join(", ")}`);
  return value as SimFlavor;
}

/** --key-scope / --key-expiry-days: what key_info reports of the liquidator's key (docs/protocol.md §8). */
function keyOptions(scope: string | undefined, days: string | undefined): Partial<SimKeyInfo> | undefined {
  if (scope === undefined && days === undefined) return undefined;
  const key: Partial<SimKeyInfo> = {};
  if (scope !== undefined) {
    if (!/^[A-Za-z_]+(,[A-Za-z_]+)*$/.test(scope))
      throw new UsageError("--key-scope must be comma-separated scope names, e.g. read,trading");
    key.scope = scope;
  }
  if (days !== undefined) {
    const n = Number(days);
    if (!/^-?\d+(\.\d+)?$/.test(days) || Math.abs(n) > 3650)
      throw new UsageError("--key-expiry-days must be a number of days in [-3650, 3650]");
    key.expiresAt = Date.now() + n * 86_400_000;
  }
  return key;
}

/**
 * node:util parseArgs reads a value that starts with `-` as an option ("ambiguous"): a negative
 * number after an option that takes one (`--key-expiry-days -1`, as --help allows) is joined to it.
 */
function joinNegativeValues(args: readonly string[], options: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const next = args[i + 1];
    if (options.includes(a) && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

export const simulate: Command = async (args, io) => {
  const { values } = parseArgs({
    args: joinNegativeValues(args, ["--key-expiry-days"]),
    options: {
      port: { type: "string" },
      seed: { type: "string" },
      host: { type: "string" },
      "header-prefix": { type: "string" },
      flavor: { type: "string" },
      quiet: { type: "boolean" },
      "adverse-bps": { type: "string" },
      "key-file": { type: "string", multiple: true },
      "key-scope": { type: "string" },
      "key-expiry-days": { type: "string" },
      capture: { type: "string" },
      minutes: { type: "string" },
      collateral: { type: "string" },
      ...MARGIN_FLAG_OPTIONS,
      "virtual-hours": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (values.capture !== undefined) captureFileOption("capture", values.capture);
  const port = intOption("port", values.port, 0, 65535);
  const seed = intOption("seed", values.seed, 0, 2 ** 32 - 1);
  if (values["virtual-hours"] !== undefined) {
    const hours = Number(values["virtual-hours"]);
    if (values.capture === undefined) throw new UsageError("--virtual-hours needs --capture FILE");
    if (!(Number.isFinite(hours) && hours > 0 && hours <= 24 * 31))
      throw new UsageError("--virtual-hours must be a number of hours in (0, 744]");
    const stats = await captureVirtualMarket({ file: values.capture, hours, seed: seed ?? 1 });
    io.stderr.write(
      `liquidator simulate: ${hours} virtual hours, ${stats.liquidations} liquidations, ${stats.polls} heatmap polls: ${stats.events} events captured to ${values.capture}\n`,
    );
    return 0;
  }
  const flavor = flavorOption(values.flavor);
  // Lines like the daemon's (observe/logger.ts): level names, ISO times, one `component`.
  const logger = createLogger({ level: io.env.LIQUIDATOR_LOG_LEVEL ?? "info", destination: io.stderr }).child({ component: "simulator" });
  const options: Parameters<typeof startSimulator>[0] = { logger };
  if (port !== undefined) options.port = port;
  if (seed !== undefined) options.seed = seed;
  if (values.host !== undefined) options.host = values.host;
  if (values["header-prefix"] !== undefined) options.headerPrefix = values["header-prefix"];
  if (flavor !== undefined) options.flavor = flavor;
  if (values.quiet) options.scenario = QUIET_SCENARIO;
  const adverse = intOption("adverse-bps", values["adverse-bps"], 0, 5_000);
  if (adverse !== undefined) options.scenario = { ...options.scenario, adverseMoveBps: adverse };
  const collateral = intOption("collateral", values.collateral, 0, 1e12);
  if (collateral !== undefined) options.collateral = collateral;
  const margin = marginFlags(values);
  if (margin !== undefined) {
    if (margin.leverage !== undefined) options.maxLeverage = margin.leverage;
    options.accountMargin = { leverage: margin.leverages, imrFactor: margin.imrFactor, maxNotional: margin.maxNotional };
  }
  const key = keyOptions(values["key-scope"], values["key-expiry-days"]);
  if (key !== undefined) options.key = key;

  const sim = await startSimulator(options);
  for (const file of values["key-file"] ?? []) {
    const publicKey = await authorizedKeyFile(file);
    sim.core.accounts.registerKey(sim.accountId, publicKey);
    logger.info({ file, publicKey }, "key authorized for the liquidator account");
  }
  // The one line other tools read; the secret belongs to a throwaway simulator key.
  io.stdout.write(
    `${JSON.stringify({
      base_url: sim.baseUrl,
      ws_url: sim.wsUrl,
      ws_private_url: sim.wsPrivateUrl,
      account_id: sim.accountId,
      secret: sim.secret,
      order_users: sim.orderUsers,
      flavor: sim.flavor,
    })}\n`,
  );
  if (values.capture !== undefined) {
    try {
      await captureSimulator(sim, values.capture, minutesOption(values.minutes) ?? 5, io);
    } finally {
      await sim.close();
    }
    return 0;
  }
  if (!io.signal.aborted) {
    await new Promise<void>((resolve) => io.signal.addEventListener("abort", () => resolve(), { once: true }));
  }
  logger.info("simulated venue stopping");
  await sim.close();
  return 0;
};
