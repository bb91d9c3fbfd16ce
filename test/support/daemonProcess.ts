/**
 * The daemon as a child process (`node <build>/cli.js run ...`) for what only a real process shows:
 * kill -9, SIGHUP, SIGTERM and exit statuses. Its stdout (pino JSON lines) is collected and parsed;
 * the metrics URL is read from the "metrics server listening" line. Not a test file itself.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cleanEnv, LogCollector, waitFor } from "./daemonHarness.js";

export interface DaemonProcess {
  child: ChildProcess;
  logs: LogCollector;
  stderr(): string;
  /** Set once the process has ended. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited(): boolean;
  metricsUrl(): Promise<string>;
  /** SIGKILL if still running (afterEach safety net). */
  kill(): Promise<void>;
}

export function spawnDaemon(cli: string, args: string[], env: Record<string, string>, cwd: string): DaemonProcess {
  const child = spawn(process.execPath, [cli, "run", ...args], { cwd, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  const logs = new LogCollector();
  let stderr = "";
  let done = false;
  child.stdout?.setEncoding("utf8").on("data", (s: string) => logs.push(s));
  child.stderr?.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("close", (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  return {
    child,
    logs,
    stderr: () => stderr,
    exit,
    exited: () => done,
    metricsUrl: async () => {
      const line = await waitFor(
        () => {
          if (done) throw new Error(`daemon exited early: ${stderr}`);
          return logs.find("metrics server listening")[0];
        },
        "the daemon's metrics server",
        30_000,
      );
      return String(line.url);
    },
    kill: async () => {
      if (done) return;
      child.kill("SIGKILL");
      await exit;
    },
  };
}
