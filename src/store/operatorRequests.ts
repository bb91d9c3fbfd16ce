/**
 * Requests an operator leaves for the running daemon through its store (`liquidator rearm`): the
 * command writes one, the replica that may send takes it (once) on its next look, every second. With
 * the file store a request is a small JSON file in the journal's folder, `requests/`, written whole
 * (a temporary name, then a rename) and removed when taken; with PostgreSQL it is a row of
 * `operator_requests` (migration 9), marked taken by the replica that took it.
 */
import { mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const OPERATOR_REQUEST_KINDS = ["rearm"] as const;
export type OperatorRequestKind = (typeof OPERATOR_REQUEST_KINDS)[number];

export interface OperatorRequest {
  kind: OperatorRequestKind;
  /** ms since the epoch the request was made. */
  at: number;
  /** Who asked (user@host), for the log. */
  by: string;
}

/** The folder of a file journal's requests (`dir`: the journal's folder). */
export function requestsDir(journalDir: string): string {
  return join(journalDir, "requests");
}

const NAME = /^(rearm)-(\d+)-[0-9a-z]+\.json$/;

/** Writes a request for the daemon of the journal in `journalDir`; resolves with its path. */
export async function writeFileRequest(journalDir: string, request: OperatorRequest): Promise<string> {
  const dir = requestsDir(journalDir);
  await mkdir(dir, { recursive: true });
  const name = `${request.kind}-${request.at}-${process.pid.toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}.json`;
  const tmp = join(dir, `.${name}.tmp`);
  await writeFile(tmp, `${JSON.stringify(request)}\n`, { mode: 0o600 });
  await rename(tmp, join(dir, name));
  return join(dir, name);
}

/** Takes every complete request in `journalDir` (oldest first), removing each; a damaged one is removed and skipped. */
export async function takeFileRequests(journalDir: string): Promise<OperatorRequest[]> {
  const dir = requestsDir(journalDir);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => NAME.test(n)).sort();
  const out: OperatorRequest[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const text = await readFile(path, "utf8").catch(() => undefined);
    // Removed first: a request is taken at most once, even if this process dies right after.
    const removed = await unlink(path).then(
      () => true,
      () => false,
    );
    if (!removed || text === undefined) continue;
    const request = parseRequest(text);
    if (request !== undefined) out.push(request);
  }
  return out.sort((a, b) => a.at - b.at);
}

function parseRequest(text: string): OperatorRequest | undefined {
  try {
    const v = JSON.parse(text) as Partial<OperatorRequest>;
    if (!(OPERATOR_REQUEST_KINDS as readonly unknown[]).includes(v.kind) || typeof v.at !== "number" || !Number.isFinite(v.at))
      return undefined;
    return { kind: v.kind as OperatorRequestKind, at: v.at, by: typeof v.by === "string" ? v.by.slice(0, 200) : "" };
  } catch {
    return undefined;
  }
}
