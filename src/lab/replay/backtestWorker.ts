/** One worker thread of a backtest on several cores (backtestJobs.ts): its share of the variants. */
import { parentPort, workerData } from "node:worker_threads";
import { type BacktestOptions, type BacktestReport, backtest } from "./backtest.js";

/** What a worker posts back: its report, or the error that stopped it. */
export type WorkerAnswer = { ok: true; report: BacktestReport } | { ok: false; error: { code?: string; message: string } };

const port = parentPort;
if (port === null) throw new Error("backtestWorker.js runs as a worker thread");
let message: WorkerAnswer;
try {
  message = { ok: true, report: await backtest(workerData as BacktestOptions) };
} catch (err) {
  const e = err as { code?: unknown; message?: unknown };
  message = { ok: false, error: { ...(typeof e.code === "string" ? { code: e.code } : {}), message: String(e.message ?? err) } };
}
port.postMessage(message);
