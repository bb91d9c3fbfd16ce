/**
 * Command dispatch: each command lives in src/commands/<name>.ts and is loaded on demand, so
 * `liquidator keygen` does not pay for the daemon's imports.
 */
import { EXIT_USAGE, exitStatusFor, LiquidatorError } from "../errors.js";
import type { Command, CommandIO } from "./command.js";

const COMMANDS: Record<string, { load: () => Promise<Command>; help: string }> = {
  run: { load: async () => (await import("./run.js")).run, help: "run the daemon [--config FILE] [--dry-run]" },
  simulate: { load: async () => (await import("./simulate.js")).simulate, help: "run the simulated venue alone [--port N] [--seed N]" },
  "check-config": {
    load: async () => (await import("./checkConfig.js")).checkConfig,
    help: "validate and print the effective config [--config FILE]",
  },
  keygen: { load: async () => (await import("./keygen.js")).keygen, help: "print a new ed25519 key pair" },
  epochs: { load: async () => (await import("./epochs.js")).epochs, help: "trading-rewards epochs [--json|--csv]" },
  campaign: { load: async () => (await import("./campaign.js")).campaign, help: "campaign statistics of one user" },
  orders: { load: async () => (await import("./orders.js")).orders, help: "admin order listing [--all]" },
  record: {
    load: async () => (await import("./record.js")).record,
    help: "record what the venue shows a liquidator to a capture --out FILE [--minutes N]",
  },
  backtest: {
    load: async () => (await import("./backtest.js")).backtestCommand,
    help: "replay captures through the policy, one row per config variant",
  },
  preflight: {
    load: async () => (await import("./preflight.js")).preflight,
    help: "ask the venue everything the daemon relies on, one line per check [--json] [--probe-orders]",
  },
  leverage: {
    load: async () => (await import("./leverage.js")).leverage,
    help: "the account's leverage per symbol, the venue's maximum, the margin a claim needs [--set-max | --set N] [--symbol S]",
  },
  pnl: { load: async () => (await import("./pnl.js")).pnl, help: "profit and loss from the journal [--by claim|symbol|day]" },
  report: {
    load: async () => (await import("./report.js")).report,
    help: "the opportunity ledger of a day: claimed, lost, skipped, expired, dry_run [--day YYYY-MM-DD] [--json|--csv|--html FILE]",
  },
  rearm: {
    load: async () => (await import("./rearm.js")).rearm,
    help: "re-arm the running daemon's protections (halted or reducing → active), through its store [--config FILE]",
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(13)} ${c.help}`);
  return `usage: liquidator <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nliquidator <command> --help for a command's options; liquidator --version for the version\n`;
}

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-V") {
    // The version and nothing else (scripts compare it); the venue client is not loaded for it.
    const { PACKAGE_VERSION } = await import("../venue/userAgent.js");
    io.stdout.write(`${PACKAGE_VERSION}\n`);
    return 0;
  }
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout.write(usage());
    return name === undefined ? EXIT_USAGE : 0;
  }
  const entry = COMMANDS[name];
  if (entry === undefined) {
    io.stderr.write(`liquidator: unknown command '${name}'\n${usage()}`);
    return EXIT_USAGE;
  }
  try {
    const command = await entry.load();
    return await command(rest, io);
  } catch (err) {
    if (err instanceof LiquidatorError) {
      io.stderr.write(`liquidator ${name}: ${err.message}\n`);
      return exitStatusFor(err);
    }
    // node:util parseArgs reports unknown or malformed options this way: a user mistake, not a bug.
    if (isParseArgsError(err)) {
      io.stderr.write(`liquidator ${name}: ${err.message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
}

function isParseArgsError(err: unknown): err is Error {
  return err instanceof TypeError && String((err as { code?: unknown }).code ?? "").startsWith("ERR_PARSE_ARGS");
}
