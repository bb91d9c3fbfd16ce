import { parseArgs } from "node:util";
import { configErrorFrom } from "../config/issues.js";
import { liveLimitProblems } from "../config/liveLimits.js";
import { loadConfig } from "../config/loadConfig.js";
import { renderEffectiveConfig, renderEffectiveConfigJson } from "../config/redact.js";
import type { Command } from "./command.js";

const HELP = `usage: liquidator check-config [--config FILE] [--json]
  validates the configuration (file, then LIQUIDATOR_* environment variables, then the secret, then
  in live mode the limits that must be set explicitly) and prints the effective config with the
  secret redacted. Exit status 0 when valid, 78 when not.
  --config FILE   config file (default: $LIQUIDATOR_CONFIG, else built-in defaults)
  --json          print JSON instead of YAML
`;

/** Validates without any network I/O; an invalid config throws ConfigError, which dispatch maps to 78. */
export const checkConfig: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: { config: { type: "string", short: "c" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const loaded = await loadConfig(values.config === undefined ? { env: io.env } : { path: values.config, env: io.env });
  // What `run` would refuse is not a valid config for it either.
  const unset = liveLimitProblems(loaded.config, loaded.given ?? new Set());
  if (unset.length > 0) throw configErrorFrom(unset);
  io.stdout.write(values.json ? renderEffectiveConfigJson(loaded) : renderEffectiveConfig(loaded));
  return 0;
};
