/**
 * `liquidator rearm`'s path through the file store: a request is written whole, taken once (oldest
 * first), a damaged one is dropped; the daemon's loop re-arms on it, only while it may send.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { operatorRequestLoop } from "../../src/app/operatorRequestLoop.js";
import { requestsDir, takeFileRequests, writeFileRequest } from "../../src/store/operatorRequests.js";
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
  test("written whole, taken once, oldest first; a damaged one is dropped", async () => {
    const dir = await temp();
    await writeFileRequest(dir, { kind: "rearm", at: 2_000, by: "b" });
    await writeFileRequest(dir, { kind: "rearm", at: 1_000, by: "a" });
    await writeFile(join(requestsDir(dir), "rearm-3000-zz.json"), "{not json");
    await writeFile(join(requestsDir(dir), ".rearm-4000-zz.json.tmp"), "{}"); // a write in progress: not a request yet
    expect(await takeFileRequests(dir)).toEqual([
      { kind: "rearm", at: 1_000, by: "a" },
      { kind: "rearm", at: 2_000, by: "b" },
    ]);
    expect(await takeFileRequests(dir)).toEqual([]);
    expect(await readdir(requestsDir(dir))).toEqual([".rearm-4000-zz.json.tmp"]);
  });

  test("no folder: nothing to take", async () => {
    expect(await takeFileRequests(join(await temp(), "none"))).toEqual([]);
  });

  test("the daemon's loop re-arms once per request, and only while it may send", async () => {
    const dir = await temp();
    let mayLead = false;
    const rearms: unknown[] = [];
    const stop = new AbortController();
    const loop = operatorRequestLoop({
      store: { takeRequests: () => takeFileRequests(dir), mayLead: () => mayLead },
      guard: { rearm: (limits, why) => void rearms.push([limits, why]) },
      logger: { info: () => undefined, warn: () => undefined },
      signal: stop.signal,
      everyMs: 5,
    });
    await writeFileRequest(dir, { kind: "rearm", at: Date.now(), by: "op" });
    await new Promise((r) => setTimeout(r, 50));
    expect(rearms).toEqual([]); // a standby leaves it for the leader
    mayLead = true;
    await waitFor(() => rearms.length === 1, "re-armed", 5_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(rearms).toEqual([[undefined, "command"]]);
    stop.abort();
    await loop;
  });
});
