/**
 * A refusal the simulated venue answers with: code and message of docs/protocol.md §3, HTTP status from
 * the one table in src/venue/errors.ts (so the daemon and the simulator cannot disagree on it).
 */
import { VENUE_CODES } from "../venue/errors.js";

export class VenueRefusal extends Error {
  readonly code: number;
  readonly status: number;

  /**
   * `detail` is appended to the code's standard text: "parameter in wrong format...: size must be ≤ 500".
   * `wire` answers with another status and text than the table's: a venue's own spelling (flavor.ts).
   */
  constructor(code: number, detail?: string, wire?: { status: number; message: string }) {
    const entry = VENUE_CODES.get(code);
    const base = entry?.text ?? "error";
    super(wire?.message ?? (detail === undefined ? base : `${base}: ${detail}`));
    this.name = "VenueRefusal";
    this.code = code;
    this.status = wire?.status ?? entry?.status ?? 500;
  }

  /** The wire body of docs/protocol.md §3. */
  body(): { success: false; code: number; message: string } {
    return { success: false, code: this.code, message: this.message };
  }
}

/** Result of a pure check: a value, or the refusal to answer with. */
export type Checked<T> = { ok: true; value: T } | { ok: false; refusal: VenueRefusal };

export function ok<T>(value: T): Checked<T> {
  return { ok: true, value };
}

export function refused<T = never>(code: number, detail?: string): Checked<T> {
  return { ok: false, refusal: new VenueRefusal(code, detail) };
}
