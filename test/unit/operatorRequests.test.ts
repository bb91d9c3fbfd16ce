/**
 * `liquidator rearm`'s path through the file store: a request is written whole, read oldest first
 * until it is done, a damaged one is dropped; the daemon's loop re-arms on it once, only while it may
 * send, and a done that fails is tried again without re-arming twice.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { operatorRequestLoopForTests } from "../../src/app/daemonRun.js";
import { fileRequestDone, fileRequests, requestsDirForTests, writeFileRequest } from "../../src/store/operatorRequests.js";
import { waitFor } from "../support/wait.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function temp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "liq-req-"));
  dirs.push(d);
  return d;
}

describe("operator requests (file store)", () => {
  test("written whole, read oldest first until done; a damaged one is dropped", async () => {
    const dir = await temp();
    await writeFileRequest(dir, { kind: "rearm", at: 2_000, by: "b" });
    await writeFileRequest(dir, { kind: "rearm", at: 1_000, by: "a" });
    await writeFile(join(requestsDirForTests(dir), "rearm-3000-zz.json"), "{not json");
    await writeFile(join(requestsDirForTests(dir), ".rearm-4000-zz.json.tmp"), "{}"); // a write in progress: not a request yet
    const open = await fileRequests(dir);
    expect(open.map((r) => [r.kind, r.at, r.by])).toEqual([
      ["rearm", 1_000, "a"],
      ["rearm", 2_000, "b"],
    ]);
    // Not done: read again.
    expect(await fileRequests(dir)).toHaveLength(2);
    for (const r of open) await fileRequestDone(dir, r.id);
    await fileRequestDone(dir, open[0]?.id as string); // done twice: nothing to say
    expect(await fileRequests(dir)).toEqual([]);
    expect(await readdir(requestsDirForTests(dir))).toEqual([".rearm-4000-zz.json.tmp"]);
  });

  test("no folder: nothing to read", async () => {
    expect(await fileRequests(join(await temp(), "none"))).toEqual([]);
  });

  test("the daemon's loop re-arms once per request, only while it may send; a failed done is retried without re-arming again", async () => {
    const dir = await temp();
    let mayLead = false;
    let failDone = 2;
    const rearms: unknown[] = [];
    const stop = new AbortController();
    // The loop asks who may send at the start of every turn: its turns are counted there.
    let turns = 0;
    const turnsMore = async (n: number) => {
      const until = turns + n;
      await waitFor(() => turns >= until, `${n} more turns of the loop`, 10_000);
    };
    const loop = operatorRequestLoopForTests({
      store: {
        requests: () => fileRequests(dir),
        requestDone: async (id) => {
          if (failDone-- > 0) throw new Error("database timed out");
          await fileRequestDone(dir, id);
        },
        mayLead: () => {
          turns++;
          return mayLead;
        },
      },
      guard: { rearm: (limits, why) => void rearms.push([limits, why]) },
      logger: { info: () => undefined, warn: () => undefined },
      signal: stop.signal,
      everyMs: 5,
    });
    await writeFileRequest(dir, { kind: "rearm", at: Date.now(), by: "op" });
    await turnsMore(10); // turns of the loop in which a leader would have acted
    expect(rearms).toEqual([]); // a standby leaves it for the leader
    mayLead = true;
    await waitFor(async () => (await fileRequests(dir)).length === 0, "done", 5_000);
    await turnsMore(10); // a done request is not acted on twice
    expect(rearms).toEqual([[undefined, "command"]]);
    stop.abort();
    await loop;
  });
});
