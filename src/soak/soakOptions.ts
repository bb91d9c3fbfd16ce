/**
 * Command line of the soak (`npm run soak -- --minutes N`): what it accepts, validated once.
 */
import { parseArgs } from "node:util";

export interface SoakOptions {
  /** Length of the run. */
  minutes: number;
  /** Seed of the simulated market (the same seed gives the same market, not the same timings). */
  seed: number;
  /** Mean new liquidations per second (Poisson), besides the cascades. */
  liquidationsPerSecond: number;
  /** Where the JSON report goes. */
  outDir: string;
  /** Keep the daemon's state dir and log after the run (their path is printed). */
  keep: boolean;
  /** The simulated account's collateral (quote): small enough, and margin binds in the cascades. */
  collateral: number;
}

export const SOAK_USAGE = `usage: npm run soak -- --minutes N [--seed N] [--rate R] [--collateral Q] [--out DIR] [--keep]
  Runs the daemon (node dist/cli.js run, live mode on loopback) against a busy simulated venue for N
  minutes while injecting faults, and reports missed, duplicate and failed claims, RSS and event-loop
  delay every minute and at the end (table on stdout, JSON in DIR/soak-<date>.json).
  --minutes N   run length, 1..1440 (default 10)
  --seed N      market seed (default 1)
  --rate R      mean liquidations per second besides cascades, 0.1..20 (default 3)
  --collateral Q  the account's collateral, quote (default 1e10: margin never binds; e.g. 200000
                makes the cascades margin-bound, so refusals for margin show as failed claims)
  --out DIR     report folder (default bench/results)
  --keep        keep the daemon's state dir and log
  Exit status: 0, or 1 when a claim was duplicated or the daemon died by itself, 64 on bad usage.`;

export class SoakUsageError extends Error {}

function number(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (!Number.isFinite(v) || v < min || v > max)
    throw new SoakUsageError(`--${name} must be a number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return v;
}

function parseOrThrow(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        minutes: { type: "string" },
        seed: { type: "string" },
        rate: { type: "string" },
        collateral: { type: "string" },
        out: { type: "string" },
        keep: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    throw new SoakUsageError((err as Error).message);
  }
}

export function parseSoakArgs(argv: readonly string[]): SoakOptions | "help" {
  const v = parseOrThrow(argv);
  if (v.help) return "help";
  const seed = number("seed", v.seed, 1, 0, 2 ** 31 - 1);
  if (!Number.isInteger(seed)) throw new SoakUsageError("--seed must be an integer");
  return {
    minutes: number("minutes", v.minutes, 10, 1, 1440),
    seed,
    liquidationsPerSecond: number("rate", v.rate, 3, 0.1, 20),
    outDir: v.out ?? "bench/results",
    keep: v.keep === true,
    collateral: number("collateral", v.collateral, 1e10, 1_000, 1e12),
  };
}
