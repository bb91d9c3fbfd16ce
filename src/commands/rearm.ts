/**
 * `liquidator rearm [--config FILE] [--wait S]`: clears a `halted` or `reducing` state and restarts
 * the loss baselines of the running daemon, through its store (store/operatorRequests.ts): a request
 * file in the journal's folder, or a row of PostgreSQL's `operator_requests`. The daemon (its leader)
 * takes it within a second; the command waits to see it taken. A request no daemon takes in time
 * stays: the next daemon started on that store takes it. SIGHUP no longer re-arms unless the
 * `protections` section changed (docs/runbook.md "Re-arming the protections").
 */
import { existsSync } from "node:fs";
import { access } from "node:fs/promises";
import { hostname, userInfo } from "node:os";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config/loadConfig.js";
import { LiquidatorError, UsageError } from "../errors.js";
import { sleep } from "../sleep.js";
import { writeFileRequest } from "../store/operatorRequests.js";
import { PgStore } from "../store/postgres/pgStore.js";
import type { Command } from "./command.js";
import { journalPath } from "./journalPath.js";

const USAGE = `usage: liquidator rearm [--config FILE] [--wait S]

Re-arms the protections of the running daemon: a halted or reducing trading state goes back to
active, loss streaks and cooldowns are cleared, and the daily loss and the drawdown count afresh from
the current net. The request goes through the daemon's store (the journal's folder in state.dir, or
PostgreSQL with state.backend: postgres), so it reaches the daemon wherever it runs; its leader
takes it within a second. Re-arming is a decision: first find out why claims lost (docs/runbook.md).

  --config FILE  config file of the daemon (default: LIQUIDATOR_CONFIG, else built-in defaults)
  --wait S       seconds to wait for the daemon to take the request (default 5; 0: do not wait)
  -h, --help     this text

Exit 0 once the request is written (the output says whether a daemon took it); 1 when it cannot be
written; 78 on an invalid config.
`;

function who(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return hostname();
  }
}

export const rearm: Command = async (args, io) => {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { config: { type: "string" }, wait: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const wait = values.wait === undefined ? 5 : Number(values.wait);
  if (!(Number.isFinite(wait) && wait >= 0 && wait <= 600)) throw new UsageError("--wait must be a number of seconds in [0, 600]");
  const loaded = await loadConfig({ path: values.config ?? io.env.LIQUIDATOR_CONFIG, env: io.env });
  const config = loaded.config;
  const request = { kind: "rearm" as const, at: Date.now(), by: who() };
  let taken: () => Promise<string | undefined>;
  let close = async (): Promise<void> => undefined;
  let where: string;
  if (config.state.backend === "postgres") {
    const store = await PgStore.open({ url: config.state.postgres_url, accountId: config.venue.account_id });
    close = () => store.close({ release: false });
    try {
      const seq = await store.request("rearm", request.by);
      where = `PostgreSQL ${store.target}, account ${config.venue.account_id} (request ${seq})`;
      taken = () => store.requestTaken(seq);
    } catch (err) {
      await close();
      throw err;
    }
  } else {
    const journal = journalPath(config);
    if (!existsSync(journal))
      throw new LiquidatorError("LIQ_JOURNAL", `no journal at ${journal}: is state.dir (${config.state.dir}) the daemon's?`);
    let path: string;
    try {
      path = await writeFileRequest(dirname(journal), request);
    } catch (err) {
      throw new LiquidatorError("LIQ_JOURNAL", `cannot write the request beside ${journal}: ${(err as Error).message}`);
    }
    where = path;
    taken = async () =>
      (await access(path).then(
        () => true,
        () => false,
      ))
        ? undefined
        : "the daemon";
  }
  try {
    io.stdout.write(`rearm requested: ${where}\n`);
    const until = Date.now() + wait * 1000;
    for (;;) {
      const by = await taken();
      if (by !== undefined) {
        io.stdout.write(`taken by ${by}: the protections are re-armed (its log says "protections re-armed")\n`);
        return 0;
      }
      if (Date.now() >= until || io.signal.aborted) break;
      await sleep(200, io.signal);
    }
    io.stdout.write(
      wait === 0
        ? "not waiting: the running daemon takes it within a second\n"
        : `no daemon took it within ${wait} s: it stays, and the next daemon started on this store takes it\n`,
    );
    return 0;
  } finally {
    await close();
  }
};
