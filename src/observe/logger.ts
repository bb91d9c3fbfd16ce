/**
 * The process logger: pino JSON lines with constant messages and data in fields; components log
 * through `logger.child({ component: "claimer" })`, and a child of a child that names its own
 * component replaces its parent's (one `component` key per line: pino would write both, which
 * Elasticsearch refuses and jq reads as the last). Pretty lines (pino-pretty) are one line each. Every secret-bearing field is redacted by path
 * (pino `redact`) before a line is written, pretty or not, so a secret reaching a log object by
 * mistake still never reaches the output.
 *
 * Path redaction sees field names, not text: a secret inside a message string or inside a
 * serialised blob (a raw ws frame) is not caught. Hence the house rule: constant messages, and never
 * log an outbound frame or request body verbatim.
 */
import { createRequire } from "node:module";
import pino, { type DestinationStream, type Logger } from "pino";
import { REDACTED } from "../redaction.js";

/** Field names whose values are secret wherever they appear (up to three levels deep). */
const SECRET_KEYS: readonly string[] = [
  "secret",
  "secretKey",
  "secret_key",
  "privateKey",
  "private_key",
  "LIQUIDATOR_SECRET",
  // The ws auth frame's `params.sign` and a request signature: replayable for the venue's 300 s
  // clock window (docs/protocol.md §2), so treated like the secret.
  "sign",
  "signature",
  "password",
  "authorization",
  "cookie",
];

const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS.map((k) => k.toLowerCase()));

/** Redaction paths: every secret key at depth 0–2, and every header (filtered by the censor). */
function redactPaths(): string[] {
  const paths: string[] = [];
  for (const k of SECRET_KEYS) {
    const seg = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
    paths.push(seg, `*.${seg}`, `*.*.${seg}`);
  }
  // Signed-request headers are `<prefix>-signature` with a configurable prefix (docs/protocol.md §2):
  // match every header and let the censor keep the harmless ones (timestamp, account id, public key).
  paths.push("headers.*", "*.headers.*", "*.*.headers.*");
  return paths;
}

function censor(value: unknown, path: string[]): unknown {
  const key = String(path[path.length - 1] ?? "").toLowerCase();
  if (SECRET_KEY_SET.has(key) || key.endsWith("-signature") || key.endsWith("_signature") || key.endsWith("-secret")) return REDACTED;
  // Only the `headers.*` paths reach here with another key: an ordinary header, kept.
  return path.includes("headers") ? value : REDACTED;
}

export interface LoggerOptions {
  /** pino level: fatal error warn info debug trace silent. */
  level: string;
  /** Human-readable lines (pino-pretty, a dev dependency) instead of JSON. */
  pretty?: boolean;
  /** Where lines go; default stdout. */
  destination?: DestinationStream;
  /** Fields on every line; default `{ name: "liquidator" }` plus pid and hostname. */
  base?: Record<string, unknown>;
}

type PrettyFactory = (options: Record<string, unknown>) => DestinationStream;

/**
 * `logger` whose `child` never repeats a key: a child binding a key its parent already binds is made
 * from `root` with the bindings merged (the child's win), at the parent's level. Children of
 * children keep the rule.
 */
function withUniqueBindings(logger: Logger, root: Logger): Logger {
  const plain = logger.child.bind(logger);
  const child = ((bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => {
    const mine = logger.bindings();
    if (!Object.keys(bindings).some((k) => Object.hasOwn(mine, k))) return withUniqueBindings(plain(bindings, options), root);
    const rootBindings = root.bindings();
    const merged: pino.Bindings = {};
    for (const [k, v] of Object.entries({ ...mine, ...bindings }))
      if (!(Object.hasOwn(rootBindings, k) && rootBindings[k] === v)) merged[k] = v;
    return withUniqueBindings(root.child(merged, { level: logger.level, ...options }), root);
  }) as unknown as Logger["child"];
  logger.child = child;
  return logger;
}

export function createLogger(options: LoggerOptions): Logger {
  const logger = createPinoLogger(options);
  return withUniqueBindings(logger, logger);
}

function createPinoLogger(options: LoggerOptions): Logger {
  const config: pino.LoggerOptions = {
    level: options.level,
    name: "liquidator",
    redact: { paths: redactPaths(), censor },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    ...(options.base !== undefined ? { base: options.base } : {}),
  };
  if (options.pretty !== true) {
    return options.destination !== undefined ? pino(config, options.destination) : pino(config);
  }
  const pretty = loadPretty();
  if (pretty === undefined) {
    const logger = options.destination !== undefined ? pino(config, options.destination) : pino(config);
    logger.warn("pino-pretty is not installed; logging JSON");
    return logger;
  }
  const stream = pretty({
    destination: options.destination ?? 1,
    sync: true,
    colorize: options.destination === undefined && process.stdout.isTTY === true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,name",
    // One line per log line (a claim: its accepted line, and a line per position closed).
    singleLine: true,
    // Lines are already redacted by pino before pino-pretty parses them.
  });
  return pino(config, stream);
}

/**
 * pino-pretty is a dev dependency: present for `npm start` and tests, absent from the production
 * image. Loaded synchronously so `createLogger` stays synchronous.
 */
function loadPretty(): PrettyFactory | undefined {
  try {
    const mod = createRequire(import.meta.url)("pino-pretty") as PrettyFactory | { default: PrettyFactory };
    return typeof mod === "function" ? mod : mod.default;
  } catch {
    return undefined;
  }
}

/**
 * Pretty output without being asked: only for `npm start` in a terminal, and only when
 * LIQUIDATOR_LOG_PRETTY does not decide otherwise. Use as `config.log.pretty || prettyByDefault(...)`.
 */
export function prettyByDefault(env: NodeJS.ProcessEnv, stdoutIsTTY: boolean | undefined): boolean {
  return stdoutIsTTY === true && env.npm_lifecycle_event === "start" && env.LIQUIDATOR_LOG_PRETTY === undefined;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { redactPaths as redactPathsForTests };
