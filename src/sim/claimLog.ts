/**
 * What the venue saw: every claim request with the time its last byte arrived, and when each
 * liquidation was first pushed. Tests and the bench read it to check "every id claimed once" and to
 * measure tick-to-claim on one clock (the venue's): claim receivedAt − liquidation emittedAt.
 */
import type { Transfer } from "./claimRules.js";

export interface ClaimLogEntry {
  seq: number;
  /** Venue time at which the complete request had been received. */
  receivedAt: number;
  /** Venue time at which the answer was decided. */
  decidedAt: number;
  /** Undefined when the request was refused before its signer was known. */
  accountId: string | undefined;
  /** Undefined when the body had no valid liquidation_id. */
  liquidationId: number | undefined;
  /** 0 on success, else the venue code answered. */
  code: number;
  message: string;
  transfers: Transfer[];
  source: "rest" | "competitor" | "direct";
}

export type NewClaimLogEntry = Omit<ClaimLogEntry, "seq">;

export class ClaimLog {
  readonly #maxEntries: number;
  readonly #entries: ClaimLogEntry[] = [];
  readonly #emitted = new Map<number, number>();
  #seq = 0;

  constructor(maxEntries = 200_000) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError("maxEntries must be a positive integer");
    this.#maxEntries = maxEntries;
  }

  record(entry: NewClaimLogEntry): ClaimLogEntry {
    const full = { ...entry, seq: ++this.#seq };
    this.#entries.push(full);
    // A long `simulate` run must not grow without bound: forget the oldest tenth at the cap.
    if (this.#entries.length > this.#maxEntries) this.#entries.splice(0, Math.ceil(this.#maxEntries / 10));
    return full;
  }

  /** Note the first time each id was pushed on the `liquidation` topic. */
  markEmitted(ids: readonly number[], at: number): void {
    for (const id of ids) if (!this.#emitted.has(id)) this.#emitted.set(id, at);
    if (this.#emitted.size > this.#maxEntries) {
      const drop = Math.ceil(this.#maxEntries / 10);
      let i = 0;
      for (const key of this.#emitted.keys()) {
        if (i++ >= drop) break;
        this.#emitted.delete(key);
      }
    }
  }

  emittedAt(liquidationId: number): number | undefined {
    return this.#emitted.get(liquidationId);
  }

  entries(): ClaimLogEntry[] {
    return this.#entries.map((e) => ({ ...e }));
  }

  /** Successful claims, oldest first. */
  successes(): ClaimLogEntry[] {
    return this.#entries.filter((e) => e.code === 0).map((e) => ({ ...e }));
  }

  forLiquidation(liquidationId: number): ClaimLogEntry[] {
    return this.#entries.filter((e) => e.liquidationId === liquidationId).map((e) => ({ ...e }));
  }
}
