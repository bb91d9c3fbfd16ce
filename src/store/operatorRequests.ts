/**
 * Requests an operator leaves for the running daemon through its store (`liquidator rearm`): the
 * command writes one, the replica that may send reads the open ones on its next look (every second),
 * acts on each, then marks it done; the command waits to see it done. Acted on at least once: a
 * request whose "done" is lost (the process dies, the database times out the answer) is acted on
 * again by whoever reads it next — harmless for a re-arm, where losing one is not (the command would
 * have been told nothing, or the daemon would stay halted). With the file store a request is a small
 * JSON file in the journal's folder, `requests/`, written whole (a temporary name, then a rename) and
 * removed when done; with PostgreSQL it is a row of `operator_requests` (migration 9), marked taken
 * by the replica that did it.
 */
import { mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const OPERATOR_REQUEST_KINDS = ["rearm"] as const;
export type OperatorRequestKind = (typeof OPERATOR_REQUEST_KINDS)[number];

export interface OperatorRequest {
  /** The store's name for it (a file name, a row number), for `requestDone`. */
  id: string;
  kind: OperatorRequestKind;
  /** ms since the epoch the request was made. */
  at: number;
  /** Who asked (user@host), for the log. */
  by: string;
}

/** The folder of a file journal's requests (`dir`: the journal's folder). */
function requestsDir(journalDir: string): string {
  return join(journalDir, "requests");
}

const NAME = /^(rearm)-(\d+)-[0-9a-z]+\.json$/;

/** Writes a request for the daemon of the journal in `journalDir`; resolves with its path. */
export async function writeFileRequest(journalDir: string, request: Omit<OperatorRequest, "id">): Promise<string> {
  const dir = requestsDir(journalDir);
  await mkdir(dir, { recursive: true });
  const name = `${request.kind}-${request.at}-${process.pid.toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}.json`;
  const tmp = join(dir, `.${name}.tmp`);
  await writeFile(tmp, `${JSON.stringify(request)}\n`, { mode: 0o600 });
  await rename(tmp, join(dir, name));
  return join(dir, name);
}

/** The complete requests in `journalDir`, oldest first; a damaged one is removed and skipped. */
export async function fileRequests(journalDir: string): Promise<OperatorRequest[]> {
  const dir = requestsDir(journalDir);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => NAME.test(n)).sort();
  const out: OperatorRequest[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), "utf8").catch(() => undefined);
    if (text === undefined) continue; // done meanwhile
    const request = parseRequest(name, text);
    if (request !== undefined) out.push(request);
    else await unlink(join(dir, name)).catch(() => undefined);
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A file request acted on: removed (the command waiting for it sees it gone). */
export async function fileRequestDone(journalDir: string, id: string): Promise<void> {
  if (!NAME.test(id)) return;
  await unlink(join(requestsDir(journalDir), id)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
  });
}

function parseRequest(id: string, text: string): OperatorRequest | undefined {
  try {
    const v = JSON.parse(text) as Partial<OperatorRequest>;
    if (!(OPERATOR_REQUEST_KINDS as readonly unknown[]).includes(v.kind) || typeof v.at !== "number" || !Number.isFinite(v.at))
      return undefined;
    return { id, kind: v.kind as OperatorRequestKind, at: v.at, by: typeof v.by === "string" ? v.by.slice(0, 200) : "" };
  } catch {
    return undefined;
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { requestsDir as requestsDirForTests };
