/**
 * A backtest on several cores: the variants are dealt out to worker threads, each of which reads the
 * captures itself and replays its share (backtestWorker.ts). Variants share nothing while they
 * replay, so a variant's result is the same in any worker; the report is the in-process one with the
 * variants in their order. Reading is repeated per worker: it is the smaller part of a replay of
 * several variants, and sharing parsed events across threads would cost a copy of each.
 */
import { Worker } from "node:worker_threads";
import { CaptureError } from "../../errors.js";
import type { Variant } from "../sweep/variants.js";
import { type BacktestOptions, type BacktestReport, backtest, markIdentical } from "./backtest.js";
import type { WorkerAnswer } from "./backtestWorker.js";

export async function backtestInJobs(o: BacktestOptions, jobs: number): Promise<BacktestReport> {
  if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError("jobs must be a positive integer");
  // Worker threads run the compiled backtestWorker.js; from the TypeScript sources (the test runner)
  // there is none, so the replay runs in this thread: the report is the same either way.
  const n = import.meta.url.endsWith(".ts") ? 1 : Math.min(jobs, o.variants.length);
  if (n <= 1) {
    const report = await backtest(o);
    markIdentical(report.variants);
    return report;
  }
  const dealt: number[][] = Array.from({ length: n }, () => []);
  if (o.group === false) {
    // Dealt round-robin: neighbouring variants (one --set list's values) tend to cost alike.
    for (let i = 0; i < o.variants.length; i++) dealt[i % n]?.push(i);
  } else {
    // In blocks: a worker replays once each group of its variants that decide alike (replayPasses.ts),
    // so its cost is the number of distinct behaviours it holds. Blocks split the first --set list's
    // values (the outermost) between workers, each holding the inner lists whole; dealt round-robin,
    // every worker would hold every behaviour.
    const size = Math.ceil(o.variants.length / n);
    for (let i = 0; i < o.variants.length; i++) dealt[Math.floor(i / size)]?.push(i);
  }
  const shares = dealt.filter((share) => share.length > 0);
  const workers: Worker[] = [];
  try {
    const reports = await Promise.all(
      shares.map((share) => {
        const w = new Worker(new URL("./backtestWorker.js", import.meta.url), {
          workerData: { ...o, variants: share.map((i) => o.variants[i] as Variant) } satisfies BacktestOptions,
        });
        workers.push(w);
        return answer(w);
      }),
    );
    const variants: BacktestReport["variants"] = new Array(o.variants.length);
    shares.forEach((share, w) => {
      share.forEach((i, k) => {
        variants[i] = (reports[w] as BacktestReport).variants[k] as BacktestReport["variants"][number];
      });
    });
    markIdentical(variants);
    return { ...(reports[0] as BacktestReport), variants };
  } finally {
    // One worker's error ends the backtest: the others stop too.
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

function answer(w: Worker): Promise<BacktestReport> {
  return new Promise((resolve, reject) => {
    w.once("message", (m: WorkerAnswer) => {
      if (m.ok) resolve(m.report);
      else reject(m.error.code === "LIQ_CAPTURE" ? new CaptureError(m.error.message) : new Error(m.error.message));
    });
    w.once("error", reject);
    w.once("exit", (code) => reject(new Error(`a backtest worker exited (code ${code}) without a report`)));
  });
}
