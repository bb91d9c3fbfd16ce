/**
 * The soak (`npm run soak -- --minutes N`): the daemon, started as a user starts it (`node
 * dist/cli.js run`, live mode, loopback), runs for N minutes against a busy simulated venue (several
 * liquidations a second, cascades, competing liquidators) while faults are injected on a schedule
 * (soakSchedule.ts): stream drops, a stall past the dead line, malformed and oversized frames, REST
 * 5xx, -1011, slow answers, a 429 storm, resets, and one kill -9 with a restart on the same state
 * dir. Every minute and at the end it reports liquidations offered, eligible, claimed by us, missed,
 * duplicate claims, failed claims by code (the venue's claim log, soakLedger.ts), and the daemon's
 * RSS and event-loop delay (its /metrics). Table on stdout, JSON in bench/results/soak-<date>.json.
 * Exit status 1 when a claim was duplicated or the daemon died by itself.
 *
 * Bounded and local: everything listens on 127.0.0.1, the daemon child is killed on every way out,
 * and a watchdog ends the process if the run overruns by two minutes.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSoakArgs, SOAK_USAGE, type SoakOptions, SoakUsageError } from "./soakOptions.js";
import { GRACE_MS, Soak } from "./soakRun.js";
import { fmtClock, writeSummary } from "./soakSummary.js";

async function main(argv: readonly string[]): Promise<number> {
  let o: SoakOptions | "help";
  try {
    o = parseSoakArgs(argv);
  } catch (err) {
    if (!(err instanceof SoakUsageError)) throw err;
    process.stderr.write(`soak: ${err.message}\n${SOAK_USAGE}\n`);
    return 64;
  }
  if (o === "help") {
    process.stdout.write(`${SOAK_USAGE}\n`);
    return 0;
  }
  const soak = new Soak(o);
  const onSignal = (): void => soak.stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  // The last way out: never leave the daemon behind, even on an exception or a hard exit.
  const killChild = (): void => {
    const pid = soak.daemon?.pid;
    if (pid !== undefined && soak.daemon.running) process.kill(pid, "SIGKILL");
  };
  process.once("exit", killChild);
  const watchdog = setTimeout(
    () => {
      process.stderr.write("soak: overran its time by 2 minutes; giving up\n");
      killChild();
      process.exit(2);
    },
    o.minutes * 60_000 + 120_000,
  );
  watchdog.unref();
  try {
    await soak.setUp();
    process.stdout.write(
      `soak: ${o.minutes} min, seed ${o.seed}, ~${o.liquidationsPerSecond} liquidations/s + a cascade of 10 every 30 s, 30 % raced by competitors (0.3–3 s)\n` +
        `      daemon: node dist/cli.js run (live mode, loopback), state and log in ${soak.work}${o.keep ? "" : " (removed at the end; --keep keeps them)"}\n` +
        `      eligible = offered ≥ ${GRACE_MS / 1000} s before the end and not taken by a competitor within ${GRACE_MS / 1000} s of its first push; missed = eligible, never claimed by us\n` +
        `faults: ${soak.faults.map((f) => `${fmtClock(f.atMs)} ${f.kind}`).join(" | ")}\n\n`,
    );
    await soak.run();
    const { stopExit } = await soak.finish();
    return writeSummary(soak, stopExit);
  } finally {
    clearTimeout(watchdog);
    await soak.tearDown();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`soak: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(2);
    },
  );
}
