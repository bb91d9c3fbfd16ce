import { parseArgs } from "node:util";
import { loadConfig } from "../config/loadConfig.js";
import { prettyByDefault } from "../observe/logger.js";
import type { Command } from "./command.js";

/** docs/architecture.md rule 6: shutdown completes within 5 s; past this the process leaves anyway. */
const SHUTDOWN_DEADLINE_MS = 4_500;

const HELP = `usage: liquidator run [--config FILE] [--dry-run]
  runs the daemon. With no config (or venue.mode: simulator) it runs against an embedded simulated
  venue on loopback, so you see claims, logs and metrics within seconds.
  --config, -c FILE  YAML config (also LIQUIDATOR_CONFIG); see config/default.yaml
  --dry-run          decide and journal every claim, never send one (also LIQUIDATOR_DRY_RUN=1)
  signals: SIGTERM/SIGINT drain in-flight claims and exit 0 (positions stay open: logged); SIGHUP
  re-reads policy, unwind, shadow and protections (protections re-arm only when that section
  changed; liquidator rearm re-arms); SIGUSR2 stops safely: no new claims, unwind what claims
  assigned until flat (dust, below the venue's minimum order, is reported and left), exit 0, or 3
  when positions above dust stay open (dry run, unwind.mode off, held or halted symbols)
`;

export const run: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: { config: { type: "string", short: "c" }, "dry-run": { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  // `--dry-run` goes in as LIQUIDATOR_DRY_RUN, so it holds for every SIGHUP reload of this process
  // (a reload re-reads the file and the environment) and wins over both: a dry run never turns live.
  const env: NodeJS.ProcessEnv = values["dry-run"] ? { ...io.env, LIQUIDATOR_DRY_RUN: "1" } : io.env;
  const loaded = await loadConfig({ ...(values.config !== undefined ? { path: values.config } : {}), env });
  // The daemon pulls in undici, ws, prom-client...: loaded only once the config is known good.
  const { runDaemon } = await import("../app/runDaemon.js");
  const deadline = (): void => {
    setTimeout(() => {
      io.stderr.write("liquidator run: shutdown took longer than 4.5 s; leaving now (unsettled claims stay journaled as intents)\n");
      process.exit(0);
    }, SHUTDOWN_DEADLINE_MS).unref();
  };
  io.signal.addEventListener("abort", deadline, { once: true });
  return await runDaemon({
    loaded,
    env,
    signal: io.signal,
    pretty: prettyByDefault(io.env, (io.stdout as NodeJS.WriteStream).isTTY),
    logDestination: io.stdout,
  });
};

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { SHUTDOWN_DEADLINE_MS as SHUTDOWN_DEADLINE_MS_FOR_TESTS };
