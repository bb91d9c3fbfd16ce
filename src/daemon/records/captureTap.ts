/**
 * What a capture holds (docs/policy-lab.md): the inputs the daemon acted on, in the order it saw
 * them, each stamped with the local wall clock. The daemon only calls `record`, which must never
 * block or throw (lab/capture/captureQueue.ts enqueues and returns); writing happens elsewhere, later.
 * Payloads are the validated wire data, so a replay maps them with the daemon's own code (ingest.ts).
 */

import type { ForecastLevels } from "../../engine/forecast.js";
import type { Fill } from "../../engine/types.js";
import type { ClaimRequest, ClaimResult, Futures, Info, OpenLiquidation } from "../../venue/restSchemas.js";
import type { FundClaimRequest } from "../../venue/supplySchemas.js";
import type { LiquidationEntry, MarkPrice } from "../../venue/wire.js";

export type CaptureEvent =
  /** Public stream frames. */
  | { k: "liquidation"; at: number; data: readonly LiquidationEntry[] }
  | { k: "markprices"; at: number; data: readonly MarkPrice[] }
  /** `GET /v1/public/liquidation` (all pages), requested at `requestedAt`. */
  | { k: "open"; at: number; requestedAt: number; rows: readonly OpenLiquidation[] }
  /** `GET /v1/public/futures` marks, as of `markAt` on the local clock. */
  | { k: "futures"; at: number; markAt: number; rows: Futures["rows"] }
  /** `GET /v1/public/info` with the futures snapshot read alongside. */
  | { k: "info"; at: number; requestedAt: number; info: Info; futures: Futures }
  /**
   * A claim answer: `code` 0 = applied (then `result`), else the venue's refusal code, -1 transport.
   * `id` is the row's id in the open list (a fund claim's `claim_id`), `request` the body as sent.
   */
  | { k: "claim"; at: number; sentAt: number; id: number; code: number; request: ClaimRequest | FundClaimRequest; result?: ClaimResult }
  /**
   * What the recording account was assigned by its own claim `id` (from the answer or the private
   * push, as booked): the replay's "recorded" column (lab/capture/recordedAccount.ts).
   */
  | { k: "assigned"; at: number; id: number; fills: readonly Fill[] }
  /**
   * One trade of the recording account's own unwind order (`qty` signed), and the mark that order was
   * priced on: the replay's unwind cost is measured from these.
   */
  | { k: "fill"; at: number; symbol: string; qty: number; price: number; fee: number; mark: number }
  /**
   * A heatmap poll (daemon/feeds/forecastPoller.ts), started at `requestedAt`: the marks it measured from
   * and the positions within the widest band, by price level (engine/forecast.ts `levelsOf`).
   */
  | { k: "forecast"; at: number; requestedAt: number; marks: readonly MarkPrice[]; levels: readonly ForecastLevels[] };

export interface CaptureTap {
  record(event: CaptureEvent): void;
  /**
   * Whether stream frames (`liquidation`, `markprices`) are wanted now (absent: always). Read before
   * a frame's event is built, so a tap that wants none costs the hot path one property read.
   */
  readonly frames?: boolean;
}
