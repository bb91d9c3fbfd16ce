/**
 * The capture file format (docs/policy-lab.md): gzip-compressed JSONL. Line 1 is the header,
 * `{"format":"liquidator-capture","version":3,...}`; every other line is one CaptureEvent
 * (daemon/records/captureTap.ts). Version 2 adds the recording account's own `assigned` and `fill` events,
 * version 3 the heatmap's `forecast` polls; older files read as before. A reader refuses a version
 * newer than it knows, naming it.
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";

export const CAPTURE_FORMAT = "liquidator-capture";
export const CAPTURE_VERSION = 3;

interface CaptureHeader {
  format: typeof CAPTURE_FORMAT;
  version: number;
  /** ISO time the file was opened. */
  created_at: string;
  /** What wrote it: `record`, `daemon` or `simulate`. */
  writer: string;
  /** REST base of the venue captured (no secret). */
  venue: string;
}

export const EVENT_KINDS: ReadonlySet<CaptureEvent["k"]> = new Set([
  "liquidation",
  "markprices",
  "open",
  "futures",
  "info",
  "claim",
  "assigned",
  "fill",
  "forecast",
]);

export function headerLine(writer: string, venue: string, now: number): string {
  const h: CaptureHeader = { format: CAPTURE_FORMAT, version: CAPTURE_VERSION, created_at: new Date(now).toISOString(), writer, venue };
  return `${JSON.stringify(h)}\n`;
}
