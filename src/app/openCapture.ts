/** `state.capture`: the daemon's capture folder, its rotating writer and the non-blocking queue in front of it. */
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
