/**
 * `state.capture`: the daemon's capture folder, its size cap fitted to the volume at start
 * (`captureBudget`), its rotating writer and the non-blocking queue in front of it.
 */
import { mkdir, readdir, stat, statfs } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { CaptureFiles } from "../lab/capture/captureFiles.js";
import { CaptureQueue } from "../lab/capture/captureQueue.js";

export async function openDaemonCapture(o: {
  dir: string;
  maxBytes: number;
  venue: string;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Once per dropped event (`liquidator_capture_dropped_total`). */
  dropped: () => void;
}): Promise<CaptureQueue> {
  let warned = false;
  const files = new CaptureFiles({
    target: { mode: "daily", dir: o.dir, maxBytes: o.maxBytes },
    writer: "daemon",
    venue: o.venue,
    onError: (err) => {
      if (!warned) o.logger.warn({ err: err.message }, "capture write failed; the daemon goes on without it");
      warned = true;
    },
  });
  await files.open();
  const queue = new CaptureQueue(files, {
    onDrop: () => {
      o.dropped();
      if (!warned) o.logger.warn({}, "capture queue full: events dropped (counted), claims not delayed");
      warned = true;
    },
  });
  o.logger.info({ dir: o.dir, maxBytes: o.maxBytes }, "capture on");
  return queue;
}

/**
 * The capture folder's size cap, fitted to its volume at start. Captures share the volume with the
 * claims journal: a cap larger than the space there would fill the disk, and a full disk stops the
 * journal, which stops claiming. So `state.capture_max_bytes: 0` (the default) takes half of what the
 * volume has for captures (its free space plus the captures already there), and a configured cap
 * larger than that space less `JOURNAL_RESERVE` is refused at start, naming the key.
 *
 * statfs sees the filesystem, not a Kubernetes emptyDir's `sizeLimit` (the kubelet evicts past it):
 * on an emptyDir set the cap explicitly, under the limit (deploy/kubernetes/overlays/ha).
 */
/** Space kept for the journal (and the rest of the volume) beyond any capture cap. */
const JOURNAL_RESERVE = 64 * 1024 * 1024;

export interface CaptureBudget {
  /** The cap to use, in bytes. */
  maxBytes: number;
  /** Bytes free on the volume at start. */
  freeBytes: number;
  /** True when the cap was derived from the volume (`capture_max_bytes: 0`). */
  derived: boolean;
}

/** Creates `captureDir` if needed (it is where the captures go) and measures its volume. */
export async function captureBudget(o: { stateDir: string; captureDir: string; configured: number }): Promise<CaptureBudget> {
  await mkdir(o.captureDir, { recursive: true });
  const fs = await statfs(o.captureDir);
  const freeBytes = fs.bavail * fs.bsize;
  const room = freeBytes + (await bytesUnder(o.captureDir));
  if (o.configured === 0) return { maxBytes: Math.max(1_000_000, Math.floor(room / 2)), freeBytes, derived: true };
  const fits = room - JOURNAL_RESERVE;
  if (o.configured > fits) {
    throw new ConfigError(
      "state.capture_max_bytes",
      `${o.configured} bytes do not fit the volume of ${o.stateDir}: it has ${freeBytes} bytes free ` +
        `(${room} with the captures already there), and ${JOURNAL_RESERVE} stay for the claims journal; ` +
        `set at most ${Math.max(0, fits)} (e.g. ${Math.max(1_000_000, Math.floor(room / 2))}), 0 for half the volume's space, or give the volume more room`,
    );
  }
  return { maxBytes: o.configured, freeBytes, derived: false };
}

async function bytesUnder(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let total = 0;
  for (const name of names) {
    const s = await stat(join(dir, name)).catch(() => undefined);
    if (s?.isFile()) total += s.size;
  }
  return total;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { JOURNAL_RESERVE as JOURNAL_RESERVE_FOR_TESTS };
