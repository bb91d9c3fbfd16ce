/**
 * The CLI as a child process (`node <build>/cli.js ...`), the one launcher of the tests: the daemon
 * (`run`) for what only a real process shows — kill -9, SIGSTOP, SIGHUP, SIGTERM and exit statuses —
 * and one-shot commands (`check-config`, `pnl`, `orders`). Its stdout is collected raw and parsed
 * (pino JSON lines); the daemon's metrics URL is read from its "metrics server listening" line, JSON
 * or pretty. The rig (rig.ts) kills what a test leaves running. Not a test file itself.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cleanEnv } from "./daemonHarness.js";
import { LogCollector } from "./logCollector.js";
import { waitFor } from "./wait.js";

export interface CliProcess {
  child: ChildProcess;
  /** stdout, raw and as parsed lines. */
  logs: LogCollector;
  stdout(): string;
  stderr(): string;
  /** Set once the process has ended (a failed spawn ends it too, with its error on stderr). */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited(): boolean;
  /** SIGKILL if still running (the rig's safety net). */
  kill(): Promise<void>;
}

export interface DaemonProcess extends CliProcess {
  metricsUrl(): Promise<string>;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `node <cli> <args>` in `cwd` with the runner's environment minus LIQUIDATOR_*, plus `env`. */
export function spawnCli(cli: string, args: string[], env: Record<string, string>, cwd: string): CliProcess {
  const child = spawn(process.execPath, [cli, ...args], { cwd, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  const logs = new LogCollector();
  let stderr = "";
  let done = false;
  child.stdout?.setEncoding("utf8").on("data", (s: string) => logs.push(s));
  child.stderr?.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null): void => {
      done = true;
      resolve({ code, signal });
    };
    child.on("close", end);
    child.on("error", (err) => {
      stderr += `spawn failed: ${err.message}\n`;
      end(null, null);
    });
  });
  return {
    child,
    logs,
    stdout: () => logs.text(),
    stderr: () => stderr,
    exit,
    exited: () => done,
    kill: async () => {
      if (done) return;
      child.kill("SIGKILL");
      await exit;
    },
  };
}

/** `node <cli> run <args>`: the daemon. */
export function spawnDaemon(cli: string, args: string[], env: Record<string, string>, cwd: string): DaemonProcess {
  const p = spawnCli(cli, ["run", ...args], env, cwd);
  return {
    ...p,
    metricsUrl: () =>
      waitFor(
        () => {
          if (p.exited()) throw new Error(`daemon exited early:\n${p.stdout()}\n${p.stderr()}`);
          return metricsUrlIn(p.stdout());
        },
        "the daemon's metrics server",
        30_000,
      ),
  };
}

/** Waits for a CLI process to end: its exit status and everything it wrote. */
export async function resultOf(p: CliProcess): Promise<CliResult> {
  const { code } = await p.exit;
  return { status: code, stdout: p.stdout(), stderr: p.stderr() };
}

/** The metrics URL the daemon logged at startup (JSON or pino-pretty lines). */
export function metricsUrlIn(stdout: string): string | undefined {
  // pino-pretty on one line: `INFO: metrics server listening {"url":"http://…",…}`.
  const pretty = /metrics server listening[^\n{]*\{[^\n]*"url":"(http:\/\/[^"]+)"/.exec(stdout);
  if (pretty?.[1] !== undefined) return pretty[1];
  for (const line of stdout.split("\n")) {
    if (!line.includes('"metrics server listening"')) continue;
    try {
      const url = (JSON.parse(line) as { url?: unknown }).url;
      if (typeof url === "string") return url;
    } catch {
      // a partial line: the next poll sees it whole
    }
  }
  return undefined;
}
