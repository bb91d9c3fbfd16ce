/**
 * One soak run (see soak.ts): the simulated venue in this process, the daemon as a child process,
 * the fault schedule carried out on time, the daemon scraped every few seconds, one table row per
 * minute. soakSummary.ts turns the result into the final report.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { type SimulatorHandle, startSimulator } from "../sim/startSimulator.js";
import { sleep } from "../sleep.js";
import { SoakDaemon } from "./soakDaemon.js";
import { injectFault } from "./soakFaults.js";
import { countOutcomes, type IdOutcome, SoakLedger } from "./soakLedger.js";
import { addCounts, type DaemonSample, probeReady, scrapeDaemon } from "./soakMetrics.js";
import type { SoakOptions } from "./soakOptions.js";
import { type MinuteRow, minuteRow, tableHeader, tableRow } from "./soakReport.js";
import { type FaultStep, faultSchedule } from "./soakSchedule.js";
import { type UnwindFigures, unwindFigures } from "./soakUnwind.js";

/** A liquidation must have been open to us this long to be eligible (one reconcile interval). */
export const GRACE_MS = 5_000;
const SCRAPE_EVERY_MS = 5_000;
const READY_PROBE_EVERY_MS = 1_000;

/** The operator's policy for the soak: wide open, so that what stops a claim is a fault, not a cap. */
export const SOAK_POLICY = {
  max_claim_notional: 1_000_000,
  max_total_exposure: 100_000_000,
  min_fee: 1,
  limit_price_slippage_bps: 50,
  max_mark_age_ms: 3_000,
};

export type Scrape = DaemonSample | { at: number; missing: true };

export interface FaultRun extends FaultStep {
  startedAt?: number;
  endedAt?: number;
  error?: string;
}

export interface DaemonTotals {
  claimResults: Record<string, number>;
  badMessages: Record<string, number>;
  skipped: Record<string, number>;
  reconnects: number;
  liquidationsSeen: number;
  unwind: UnwindFigures;
}

export class Soak {
  readonly o: SoakOptions;
  readonly runMs: number;
  readonly work: string;
  sim!: SimulatorHandle;
  ledger!: SoakLedger;
  daemon!: SoakDaemon;
  t0 = 0;
  /** End of the measured run: t0 + the requested length, or the moment of a Ctrl-C. */
  runEnd = 0;
  readonly scrapes: Scrape[] = [];
  /** /readyz once a second: readiness per minute without aliasing with the fault times. */
  readonly readiness: { at: number; ready: boolean }[] = [];
  /** Last scrape of each daemon process that has ended (counters restart with each process). */
  readonly finished: DaemonSample[] = [];
  lastSample: DaemonSample | undefined;
  readonly faults: FaultRun[];
  readonly unexpectedExits: { at: number; code: number | null; signal: string | null }[] = [];
  readonly rows: MinuteRow[] = [];
  readonly #pending = new Set<Promise<void>>();
  readonly stop = new AbortController();

  constructor(o: SoakOptions) {
    this.o = o;
    this.runMs = o.minutes * 60_000;
    this.work = mkdtempSync(join(tmpdir(), "liq-soak-"));
    this.faults = faultSchedule(this.runMs);
  }

  async setUp(): Promise<void> {
    const cliPath = fileURLToPath(new URL("../cli.js", import.meta.url));
    if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm run build first`);
    this.sim = await startSimulator({
      host: "127.0.0.1",
      port: 0,
      seed: this.o.seed,
      collateral: this.o.collateral,
      scenario: {
        liquidationsPerSec: this.o.liquidationsPerSecond,
        cascadeIntervalMs: 30_000,
        cascadeSize: 10,
        competitorProbability: 0.3,
        competitorDelayMs: [300, 3_000],
        // The daemon's unwinder closes what it claims; the venue closes nothing by itself.
        unwindIntervalMs: 0,
        epochAdvanceMs: 120_000,
      },
    });
    this.ledger = new SoakLedger(this.sim.core);
    const stateDir = join(this.work, "state");
    mkdirSync(stateDir);
    const configPath = join(this.work, "soak.yaml");
    writeFileSync(configPath, stringify({ policy: SOAK_POLICY }));
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LIQUIDATOR_")) env[k] = v;
    Object.assign(env, {
      LIQUIDATOR_VENUE: "live",
      LIQUIDATOR_CONFIG: configPath,
      LIQUIDATOR_BASE_URL: this.sim.baseUrl,
      LIQUIDATOR_WS_URL: this.sim.wsUrl,
      LIQUIDATOR_WS_PRIVATE_URL: this.sim.wsPrivateUrl,
      LIQUIDATOR_ACCOUNT_ID: this.sim.accountId,
      LIQUIDATOR_SECRET: this.sim.secret,
      LIQUIDATOR_STATE_DIR: stateDir,
      LIQUIDATOR_METRICS_HOST: "127.0.0.1",
      LIQUIDATOR_METRICS_PORT: "0",
      LIQUIDATOR_LOG_LEVEL: "info",
    });
    this.daemon = new SoakDaemon({ cliPath, env, logPath: join(this.work, "daemon.log") });
    this.daemon.onUnexpectedExit = (exit) => {
      // Ctrl-C reaches the whole process group: the daemon's own clean exit is then no failure.
      if (this.stop.signal.aborted) return;
      this.unexpectedExits.push({ at: exit.at, code: exit.code, signal: exit.signal });
      if (this.lastSample !== undefined) this.finished.push(this.lastSample);
      this.lastSample = undefined;
      process.stdout.write(`!! the daemon exited by itself (code ${String(exit.code)}, signal ${String(exit.signal)}); restarting it\n`);
      if (!this.stop.signal.aborted) this.#background(sleep(1_000).then(() => this.daemon.start().then(() => undefined)));
    };
  }

  async run(): Promise<void> {
    this.t0 = Date.now();
    this.runEnd = this.t0 + this.runMs;
    await this.daemon.start();
    const end = this.t0 + this.runMs;
    let nextScrape = this.t0;
    let nextProbe = this.t0;
    let nextMinute = this.t0 + 60_000;
    process.stdout.write(`${tableHeader()}\n`);
    while (!this.stop.signal.aborted) {
      const now = Date.now();
      for (const f of this.faults) {
        if (f.startedAt === undefined && now - this.t0 >= f.atMs) {
          f.startedAt = now;
          this.#background(this.#inject(f));
        }
      }
      if (now >= nextProbe) {
        nextProbe += READY_PROBE_EVERY_MS;
        const at = now;
        this.#background(
          probeReady(this.daemon.running ? this.daemon.metricsUrl : undefined).then((ready) => void this.readiness.push({ at, ready })),
        );
      }
      if (now >= nextScrape) {
        nextScrape += SCRAPE_EVERY_MS;
        await this.#scrape();
      }
      if (now >= nextMinute || now >= end) {
        const minute = this.rows.length + 1;
        const row = this.#minute(minute, Math.min(now, end));
        this.rows.push(row);
        process.stdout.write(`${tableRow(row)}\n`);
        nextMinute += 60_000;
      }
      if (now >= end) break;
      await sleep(100);
    }
    if (this.stop.signal.aborted) {
      // Interrupted: the run ends now, and the minute under way gets its (partial) row.
      this.runEnd = Date.now();
      if (this.t0 + this.rows.length * 60_000 < this.runEnd) {
        const row = this.#minute(this.rows.length + 1, this.runEnd);
        this.rows.push(row);
        process.stdout.write(`${tableRow(row)}\n`);
      }
    }
  }

  /** Stops the daemon politely (its shutdown is part of what is soaked), waits for faults to end. */
  async finish(): Promise<{ stopExit: string }> {
    await Promise.allSettled([...this.#pending]);
    await this.#scrape();
    if (this.lastSample !== undefined) this.finished.push(this.lastSample);
    this.lastSample = undefined;
    await this.daemon.stop();
    const last = this.daemon.exits.at(-1);
    return { stopExit: last === undefined ? "not running" : `code ${String(last.code)}, signal ${String(last.signal)}` };
  }

  async tearDown(): Promise<void> {
    this.ledger?.detach();
    await this.daemon?.close().catch(() => undefined);
    await this.sim?.close().catch(() => undefined);
    if (!this.o.keep) rmSync(this.work, { recursive: true, force: true });
  }

  /** A fault's wait: cut short by Ctrl-C, so the fault is undone and the run ends promptly. */
  #pause(ms: number): Promise<void> {
    return sleep(ms, this.stop.signal);
  }

  #background(p: Promise<void>): void {
    const q = p.catch((err: unknown) => void process.stdout.write(`!! ${(err as Error).message}\n`));
    this.#pending.add(q);
    void q.finally(() => this.#pending.delete(q));
  }

  async #scrape(): Promise<void> {
    const url = this.daemon.metricsUrl;
    const s = this.daemon.running && url !== undefined ? await scrapeDaemon(url) : undefined;
    if (s === undefined) {
      this.scrapes.push({ at: Date.now(), missing: true });
      return;
    }
    this.scrapes.push(s);
    this.lastSample = s;
  }

  async #inject(f: FaultRun): Promise<void> {
    try {
      await injectFault(f, {
        faults: this.sim.faults,
        pause: (ms) => this.#pause(ms),
        restartDaemon: async (downMs) => {
          await this.#scrape(); // this process's last counters
          if (this.lastSample !== undefined) this.finished.push(this.lastSample);
          this.lastSample = undefined;
          await this.daemon.kill9();
          await this.#pause(downMs);
          await this.daemon.start();
        },
      });
    } catch (err) {
      f.error = (err as Error).message;
    } finally {
      f.endedAt = Date.now();
    }
  }

  #minute(minute: number, to: number): MinuteRow {
    const from = this.t0 + (minute - 1) * 60_000;
    const outcomes = this.ledger.outcomes(Date.now(), this.runEnd, GRACE_MS).filter((o) => o.firstPushAt >= from && o.firstPushAt < to);
    const samples = this.scrapes.filter((s) => s.at >= from && s.at < to);
    const probes = this.readiness.filter((r) => r.at >= from && r.at < to);
    const faults = this.faults.filter((f) => f.startedAt !== undefined && f.startedAt >= from && f.startedAt < to).map((f) => f.kind);
    return minuteRow(
      minute,
      countOutcomes(outcomes),
      this.ledger.requests(from, to),
      this.ledger.failedByCode(from, to),
      samples,
      probes,
      faults,
    );
  }

  /** Final per-minute rows: the same windows, with every outcome decided. */
  finalRows(): MinuteRow[] {
    return this.rows.map((r) => {
      const to = Math.min(this.t0 + r.minute * 60_000, this.runEnd);
      return this.#minute(r.minute, to);
    });
  }

  daemonTotals(): DaemonTotals {
    const processes = [...this.finished, ...(this.lastSample ? [this.lastSample] : [])];
    const t: Omit<DaemonTotals, "unwind"> = { claimResults: {}, badMessages: {}, skipped: {}, reconnects: 0, liquidationsSeen: 0 };
    for (const s of processes) {
      addCounts(t.claimResults, s.claimResults);
      addCounts(t.badMessages, s.badMessages);
      addCounts(t.skipped, s.skipped);
      t.reconnects += s.reconnects;
      t.liquidationsSeen += s.liquidationsSeen;
    }
    return {
      ...t,
      unwind: unwindFigures(
        processes.map((s) => s.unwind),
        t.skipped.exposure_cap ?? 0,
      ),
    };
  }

  /** Which faults were under way while a missed liquidation was open (for the report). */
  faultsDuring(o: IdOutcome): string[] {
    const to = o.goneAt ?? this.runEnd;
    return this.faults
      .filter((f) => f.startedAt !== undefined && f.startedAt <= to && (f.endedAt ?? Number.POSITIVE_INFINITY) + GRACE_MS >= o.firstPushAt)
      .map((f) => f.kind);
  }
}
