/**
 * Mounts a root-run test makes (bind mounts, /proc in a chroot, what podman and debootstrap leave),
 * and removing a folder only once nothing is mounted under it: a recursive delete through a live
 * /proc or bind mount would reach outside the folder. Linux only, needs root. Not a test file itself.
 */
import { execFile } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { sep } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** mountinfo escapes space, tab, newline and backslash as octal. */
const unoctal = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

/** Mount points at or under `dir`, deepest first (the order to unmount them in). */
export function mountsUnder(dir: string): string[] {
  let root: string;
  try {
    root = realpathSync(dir);
  } catch {
    return [];
  }
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((p): p is string => p !== undefined)
    .map(unoctal)
    .filter((p) => p === root || p.startsWith(root + sep));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

export async function bindMount(source: string, target: string): Promise<void> {
  await run("mount", ["--bind", source, target]);
}

export async function mountProc(target: string): Promise<void> {
  await run("mount", ["-t", "proc", "proc", target]);
}

export async function unmount(target: string): Promise<void> {
  // Lazily when busy (a process still inside): detached now, freed when it lets go.
  await run("umount", [target]).catch(() => run("umount", ["-l", target]));
}

/** Unmounts everything under `dir`; throws naming what stays mounted. */
export async function unmountUnder(dir: string): Promise<void> {
  // A mount can hide another on the same point: repeat until none is left or nothing changes.
  for (let pass = 0; pass < 5; pass++) {
    const points = mountsUnder(dir);
    if (points.length === 0) return;
    for (const p of points) await unmount(p).catch(() => undefined);
  }
  const left = mountsUnder(dir);
  if (left.length > 0) throw new Error(`still mounted under ${dir}: ${left.join(", ")}`);
}

/** Unmounts everything under `dir`, then deletes it; deletes nothing while a mount stays. */
export async function removeUnmounted(dir: string): Promise<void> {
  await unmountUnder(dir);
  await rm(dir, { recursive: true, force: true });
}
