/**
 * The daemon under soak, as a user runs it: `node dist/cli.js run` in a child process, live mode
 * against the simulated venue on loopback, its pino JSON log appended to a file. Knows how to start
 * it, kill it hard, restart it on the same state dir, stop it politely, and read its metrics URL
 * from its log. Also keeps a count of its warn/error log lines by message.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { sleep } from "../sleep.js";

export interface DaemonExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the soak itself killed or stopped it. */
  expected: boolean;
  at: number;
}

export interface SoakDaemonOptions {
  cliPath: string;
  env: NodeJS.ProcessEnv;
  logPath: string;
  /** How long a start may take until the metrics server is up. */
  startTimeoutMs?: number;
}

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
const PROBLEM_LEVELS = new Set(["warn", "error", "fatal"]);

export class SoakDaemon {
  readonly #options: SoakDaemonOptions;
  readonly #log: WriteStream;
  #child: ChildProcess | undefined;
  #expectExit = false;
  #metricsUrl: string | undefined;
  #partial = "";
  #starts = 0;
  readonly exits: DaemonExit[] = [];
  /** `level msg` → count, for warn and worse. */
  readonly problems = new Map<string, number>();
  /** Called when the process ends without the soak asking it to. */
  onUnexpectedExit: ((exit: DaemonExit) => void) | undefined;

  constructor(options: SoakDaemonOptions) {
    this.#options = options;
    this.#log = createWriteStream(options.logPath, { flags: "a" });
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    const c = this.#child;
    return c !== undefined && c.exitCode === null && c.signalCode === null;
  }

  get metricsUrl(): string | undefined {
    return this.#metricsUrl;
  }

  get starts(): number {
    return this.#starts;
  }

  /** Starts the process; resolves with its metrics URL once its metrics server listens. */
  async start(): Promise<string> {
    if (this.running) throw new Error("the daemon is already running");
    this.#starts++;
    this.#metricsUrl = undefined;
    this.#expectExit = false;
    this.#partial = "";
    const child = spawn(process.execPath, [this.#options.cliPath, "run"], { env: this.#options.env, stdio: ["ignore", "pipe", "pipe"] });
    this.#child = child;
    child.stdout?.setEncoding("utf8").on("data", (s: string) => this.#onStdout(s));
    child.stderr?.setEncoding("utf8").on("data", (s: string) => {
      this.#log.write(`[stderr] ${s}`);
      this.#count("stderr", s.split("\n")[0]?.slice(0, 120) ?? "");
    });
    child.once("exit", (code, signal) => {
      const exit: DaemonExit = { code, signal, expected: this.#expectExit, at: Date.now() };
      this.exits.push(exit);
      if (!exit.expected) this.onUnexpectedExit?.(exit);
    });
    const deadline = Date.now() + (this.#options.startTimeoutMs ?? 30_000);
    while (this.#metricsUrl === undefined) {
      if (!this.running) throw new Error(`the daemon exited during start (code ${String(child.exitCode)}); see ${this.#options.logPath}`);
      if (Date.now() > deadline) throw new Error(`the daemon did not start its metrics server in time; see ${this.#options.logPath}`);
      await sleep(20);
    }
    return this.#metricsUrl;
  }

  /** SIGKILL: no shutdown, no journal flush beyond what was written (the crash a journal must survive). */
  async kill9(): Promise<void> {
    await this.#end("SIGKILL", 0);
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 8_000): Promise<void> {
    await this.#end("SIGTERM", graceMs);
  }

  async close(): Promise<void> {
    if (this.running) await this.#end("SIGKILL", 0);
    await new Promise<void>((resolve) => this.#log.end(() => resolve()));
  }

  async #end(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const child = this.#child;
    if (child === undefined || !this.running) return;
    this.#expectExit = true;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(signal);
    if (graceMs > 0) {
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    } else {
      await exited;
    }
  }

  #onStdout(s: string): void {
    this.#log.write(s);
    const lines = (this.#partial + s).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.length === 0) continue;
      let rec: { level?: unknown; msg?: unknown; url?: unknown };
      try {
        rec = JSON.parse(line) as typeof rec;
      } catch {
        continue;
      }
      if (rec.msg === "metrics server listening" && typeof rec.url === "string") this.#metricsUrl = rec.url;
      // The daemon writes level labels (observe/logger.ts); numbers are pino's default.
      const level = typeof rec.level === "number" ? (LEVELS[rec.level] ?? String(rec.level)) : String(rec.level);
      if (PROBLEM_LEVELS.has(level)) this.#count(level, typeof rec.msg === "string" ? rec.msg : "?");
    }
  }

  #count(level: string, msg: string): void {
    const key = `${level} ${msg}`;
    this.problems.set(key, (this.problems.get(key) ?? 0) + 1);
  }
}
