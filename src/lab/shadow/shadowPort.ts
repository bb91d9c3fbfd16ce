/**
 * Where the shadow feed's replay (shadowReplay.ts) runs: a worker thread running the compiled
 * shadowWorker.js, so the claim thread only posts messages; from the TypeScript sources (the test
 * runner) there is none, and the replay runs in this thread behind the same messages, each cloned
 * and delivered on a later turn as a worker's would be.
 */
import { Worker } from "node:worker_threads";
import { type ShadowIn, ShadowReplay, type ShadowReport } from "./shadowReplay.js";

export interface ShadowPort {
  /** Where the replay runs. */
  readonly thread: "worker" | "caller";
  post(m: ShadowIn): void;
  /** Stops the replay; nothing is reported after. */
  close(): Promise<void>;
}

export interface ShadowPortEvents {
  report(m: ShadowReport): void;
  /** The thread died (not closed): the shadows stop. */
  died(err: Error): void;
}

export function openShadowPort(on: ShadowPortEvents): ShadowPort {
  return import.meta.url.endsWith(".ts") ? inThread(on) : inWorker(on);
}

function inWorker(on: ShadowPortEvents): ShadowPort {
  const worker = new Worker(new URL("./shadowWorker.js", import.meta.url));
  let closed = false;
  // The shadows never keep the daemon running: its shutdown closes them, and if it does not get to, exit still does.
  worker.unref();
  worker.on("message", (m: ShadowReport) => {
    if (!closed) on.report(m);
  });
  const died = (err: Error): void => {
    if (closed) return;
    closed = true;
    on.died(err);
  };
  worker.on("error", died);
  worker.on("exit", (code) => died(new Error(`the shadow worker exited (code ${code})`)));
  return {
    thread: "worker",
    post: (m) => {
      if (!closed) worker.postMessage(m);
    },
    close: async () => {
      closed = true;
      await worker.terminate();
    },
  };
}

function inThread(on: ShadowPortEvents): ShadowPort {
  let closed = false;
  // Only the replay's own work: the process's CPU time between reports would count the caller's too.
  let cpuMicros = 0;
  const replay = new ShadowReplay(
    (m) => {
      const copy = structuredClone(m);
      setImmediate(() => {
        if (!closed) on.report(copy);
      });
    },
    () => cpuMicros,
  );
  return {
    thread: "caller",
    post: (m) => {
      const copy = structuredClone(m);
      setImmediate(() => {
        if (closed) return;
        const at = process.cpuUsage();
        replay.handle(copy);
        const used = process.cpuUsage(at);
        cpuMicros += used.user + used.system;
      });
    },
    close: async () => {
      closed = true;
    },
  };
}
