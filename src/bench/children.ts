/**
 * The bench's child processes (venue, daemon, floor): started through here so that every one is
 * killed when the bench ends, fails, is interrupted, or overruns its deadline. IPC helpers for the
 * venue child live here too.
 */
import { type ChildProcess, fork, type SpawnOptions, spawn } from "node:child_process";
import type { FloorConfig, FloorMessage } from "./floorClient.js";
import type { VenueInfo, VenueReply, VenueRequest } from "./venueProtocol.js";

type Distribute<T> = T extends unknown ? Omit<T, "id"> : never;
export type VenueCommand = Distribute<VenueRequest>;

export class ProcessGroup {
  readonly #children = new Set<ChildProcess>();

  constructor() {
    process.once("exit", () => this.killAll());
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      process.once(sig, () => {
        this.killAll();
        process.exit(130);
      });
    }
  }

  fork(modulePath: string, args: string[] = [], execArgv: string[] = []): ChildProcess {
    return this.#track(fork(modulePath, args, { stdio: ["ignore", "inherit", "inherit", "ipc"], execArgv }));
  }

  spawn(command: string, args: string[], options: SpawnOptions): ChildProcess {
    return this.#track(spawn(command, args, options));
  }

  #track(child: ChildProcess): ChildProcess {
    this.#children.add(child);
    child.once("exit", () => this.#children.delete(child));
    return child;
  }

  /** SIGKILL every child still running (the ones this bench started, nothing else). */
  killAll(): void {
    for (const child of this.#children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    this.#children.clear();
  }
}

/** Resolves when `child` has exited; SIGTERM first, SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 6_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  const result = await exited;
  clearTimeout(timer);
  return result;
}

/** Request/response over a forked venue child's IPC channel. */
export class VenueClient {
  readonly child: ChildProcess;
  #next = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(child: ChildProcess) {
    this.child = child;
    child.on("message", (m: VenueReply) => {
      const p = this.#pending.get(m.id);
      if (p === undefined) return;
      this.#pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`venue: ${m.error}`));
    });
    child.once("exit", (code, signal) => {
      for (const p of this.#pending.values()) p.reject(new Error(`venue process exited (${code ?? signal})`));
      this.#pending.clear();
    });
  }

  request<T>(cmd: VenueCommand, timeoutMs = 60_000): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`venue: ${cmd.cmd} took longer than ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.send({ ...cmd, id } as VenueRequest);
    });
  }
}

/** Poll `check` every `everyMs` until it returns a value other than undefined, or fail after `timeoutMs`. */
export async function poll<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  everyMs = 50,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The floor client (floorClient.ts) forked against one lane, resolved once it says it is ready. */
export async function startFloor(group: ProcessGroup, script: string, nodeArgs: string[], info: VenueInfo): Promise<ChildProcess> {
  const child = group.fork(script, [], nodeArgs);
  const ready = new Promise<void>((resolveReady, reject) => {
    child.on("message", (m: FloorMessage) => (m.type === "ready" ? resolveReady() : reject(new Error(`floor: ${m.error}`))));
    child.once("exit", (code) => reject(new Error(`floor exited with ${code}`)));
    setTimeout(() => reject(new Error("floor not ready within 15 s")), 15_000).unref();
  });
  child.send({
    baseUrl: info.baseUrl,
    wsUrl: info.wsUrl,
    accountId: info.accountId,
    secret: info.secret,
    headerPrefix: "service",
  } satisfies FloorConfig);
  await ready;
  return child;
}
