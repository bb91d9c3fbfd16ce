/** A recorder writing one capture file for `minutes` (or until `signal`): `record --out` and `simulate --capture`. */
import { CaptureFiles } from "./captureFiles.js";
import { CaptureQueue } from "./captureQueue.js";
import { type RecorderOptions, runRecorder } from "./recorder.js";

export interface RecordToFileOptions extends Omit<RecorderOptions, "tap"> {
  file: string;
  /** REST base of the venue (written in the header). */
  venue: string;
  writer: string;
  minutes: number | undefined;
}

export async function recordToFile(o: RecordToFileOptions, signal: AbortSignal): Promise<{ events: number; dropped: number }> {
  let writeError: Error | undefined;
  const files = new CaptureFiles({
    target: { mode: "single", path: o.file },
    writer: o.writer,
    venue: o.venue,
    onError: (err) => {
      writeError ??= err;
    },
  });
  const queue = new CaptureQueue(files);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const timer = o.minutes === undefined ? undefined : setTimeout(onAbort, o.minutes * 60_000);
  try {
    await runRecorder({ ...o, tap: queue }, stop.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    await queue.close();
  }
  if (writeError !== undefined) throw writeError;
  return { events: queue.written, dropped: queue.dropped };
}
