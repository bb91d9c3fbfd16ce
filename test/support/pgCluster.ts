/**
 * A throwaway PostgreSQL server for tests, no mock: initdb into a fresh temp dir (as the `postgres`
 * user when we run as root: initdb refuses root), a free 127.0.0.1 port, a private unix socket dir,
 * trust auth, fsync off. The server can be stopped and started again on the same port and data, or
 * frozen (SIGSTOP: a host that stops answering without closing anything). `destroy` stops it and
 * removes the dir; an exit hook does the same if a run dies first. Not a test file itself.
 *
 * Without the server binaries a test file skips with how to install them, except in CI (`CI` set),
 * where `.ci/run` installs them and their absence fails the run.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePortForTests } from "../../src/bench/daemonRunner.js";

const run = promisify(execFile);

export const PG_INSTALL_HINT = "apt-get install postgresql (Debian puts initdb and pg_ctl in /usr/lib/postgresql/<version>/bin)";

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/DB`: trust auth, no password. */
  readonly url: string;
  readonly port: number;
  /** A new empty database on the same server (tests that need a fresh schema); returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown (connections are told and closed); the data stays. */
  stop(): Promise<void>;
  /** Starts again on the same port and data. */
  start(): Promise<void>;
  /** Freezes every server process (SIGSTOP): connects and queries hang instead of failing. */
  pause(): void;
  resume(): void;
  /** Stops the server and removes everything. */
  destroy(): Promise<void>;
}

export interface PgClusterOptions {
  /** Extra postgresql.conf settings, e.g. `{ track_commit_timestamp: "on" }`. */
  settings?: Record<string, string>;
  database?: string;
  signal?: AbortSignal;
}

/** The directory holding initdb and pg_ctl: PATH first, then Debian's versioned directories. */
export function pgBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

const asRoot = process.getuid?.() === 0;

/** Why a cluster cannot be started here, or undefined when it can. */
export function pgUnavailableReason(): string | undefined {
  if (pgBinDir() === undefined) return `PostgreSQL server binaries not found: ${PG_INSTALL_HINT}`;
  if (asRoot && spawnSync("id", ["-u", "postgres"]).status !== 0) return "running as root and there is no `postgres` user to run initdb as";
  return undefined;
}

/**
 * `describe` for a file that needs a cluster: skipped with the reason outside CI when PostgreSQL is
 * missing, failed in CI.
 */
export function describeWithPostgres(name: string, body: () => void): void {
  const reason = pgUnavailableReason();
  if (reason === undefined) return void describe(name, body);
  if (process.env.CI !== undefined && process.env.CI !== "") {
    describe(name, () => it("needs PostgreSQL (required in CI)", () => expect.fail(reason)));
    return;
  }
  process.stderr.write(`NOTE: skipping "${name}": ${reason}\n`);
  describe.skip(`${name} (skipped: ${reason})`, body);
}

export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  if (bin === undefined) throw new Error(`PostgreSQL server binaries not found: ${PG_INSTALL_HINT}`);
  const dir = mkdtempSync(join(tmpdir(), "liq-pg-"));
  const data = join(dir, "data");
  const sockets = join(dir, "sock");
  mkdirSync(sockets);
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
    chownSync(sockets, uid, gid);
  }
  const command = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
  const pgCtl = async (...args: string[]): Promise<void> => {
    const [file, argv] = command("pg_ctl", ["-D", data, "-w", "-t", "60", ...args]);
    await run(file, argv, { signal: options.signal });
  };
  const cleanupOnExit = (): void => {
    const [file, argv] = command("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
    spawnSync(file, argv, { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", cleanupOnExit);

  const port = await freePortForTests();
  try {
    const [file, argv] = command("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"]);
    await run(file, argv, { signal: options.signal });
    const settings: Record<string, string> = {
      listen_addresses: "'127.0.0.1'",
      port: String(port),
      unix_socket_directories: `'${sockets}'`,
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
      max_connections: "100",
      shared_buffers: "16MB",
      ...options.settings,
    };
    const conf = Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}\n`)
      .join("");
    writeFileSync(join(data, "postgresql.conf"), `${readFileSync(join(data, "postgresql.conf"), "utf8")}\n${conf}`);
    await pgCtl("-l", join(dir, "server.log"), "start");
    const createDatabase = async (name: string): Promise<string> => {
      const admin = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).finally(() => admin.end());
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    };
    const url = await createDatabase(options.database ?? "liquidator_test");

    let paused: number[] = [];
    const cluster: PgCluster = {
      url,
      port,
      createDatabase,
      stop: () => pgCtl("-m", "fast", "stop"),
      start: () => pgCtl("-l", join(dir, "server.log"), "start"),
      pause: () => {
        paused = serverPids(data);
        for (const pid of paused) process.kill(pid, "SIGSTOP");
      },
      resume: () => {
        for (const pid of paused) process.kill(pid, "SIGCONT");
        paused = [];
      },
      destroy: async () => {
        cluster.resume();
        await pgCtl("-m", "immediate", "stop").catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
        process.off("exit", cleanupOnExit);
      },
    };
    return cluster;
  } catch (err) {
    cleanupOnExit();
    process.off("exit", cleanupOnExit);
    throw err;
  }
}

/** The postmaster (from postmaster.pid) and its children (from /proc). */
function serverPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        // Field 4 of /proc/PID/stat is the parent pid; the name (field 2) may hold spaces, so split after ")".
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/**
 * A vitest fixture of one PostgreSQL server for the whole file, started when a test first asks for
 * it and destroyed after the file: `rigTest.extend<{ pgc: PgCluster }>({ pgc: pgClusterFixture })`.
 */
export const pgClusterFixture: [(context: object, use: (cluster: PgCluster) => Promise<void>) => Promise<void>, { scope: "file" }] = [
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  async ({}, use) => {
    const cluster = await startPgCluster();
    await use(cluster);
    await cluster.destroy();
  },
  { scope: "file" },
];
