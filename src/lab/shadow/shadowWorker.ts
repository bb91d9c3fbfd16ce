/**
 * The shadow variants' worker thread (shadowFeed.ts): the replay (shadowReplay.ts) fed by the
 * daemon's messages, its CPU time read from this thread alone (the process's would count the claim
 * thread's work too). On Linux the thread runs at the lowest scheduling priority: on a host short of
 * cores the claim thread gets the CPU first, and the shadows lag (their queue is bounded) instead.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { constants, setPriority } from "node:os";
import { performance } from "node:perf_hooks";
import { parentPort } from "node:worker_threads";
import { type ShadowIn, ShadowReplay } from "./shadowReplay.js";

const port = parentPort;
if (port === null) throw new Error("shadowWorker.js runs as a worker thread");

/** Linux's USER_HZ (the unit of /proc's CPU times) is 100 on every architecture Node runs on. */
const MICROS_PER_TICK = 10_000;

const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);

/** This thread's CPU time so far, µs: Node's own count where it has one, else Linux's, else the busy time of this thread's loop. */
function threadCpuMicros(): number {
  if (threadCpuUsage !== undefined) {
    const u = threadCpuUsage();
    return u.user + u.system;
  }
  try {
    const stat = readFileSync("/proc/thread-self/stat", "latin1");
    // After the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * MICROS_PER_TICK;
  } catch {
    return performance.eventLoopUtilization().active * 1000;
  }
}

/** This thread's id (Linux: /proc/thread-self is `PID/task/TID`), or undefined. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

const tid = threadId();
// Linux applies a thread id's priority to that thread alone; raising one's own nice value needs no privilege.
if (tid !== undefined) {
  try {
    setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    // Left at the process's priority: the shadows still run off the claim thread.
  }
}

const replay = new ShadowReplay((m) => port.postMessage(m), threadCpuMicros);
port.on("message", (m: ShadowIn) => replay.handle(m));
