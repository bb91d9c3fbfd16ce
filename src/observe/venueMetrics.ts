/**
 * The venue connection's families: each stream's state, reconnects, frames and bad frames, and the
 * REST requests by path template and status.
 */
import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import { BAD_MESSAGE_REASONS } from "../venue/wire.js";
import { metricMakers, oneOf } from "./metricMakers.js";

const STREAMS = ["public", "private"] as const;

export interface VenueMetrics {
  readonly wsConnected: Gauge<"stream">;
  /** 1 while the stream is degraded and its data is read from REST. */
  readonly degraded: Gauge<"stream">;
  readonly wsReconnects: Counter<"stream">;
  readonly wsMessages: Counter<"stream" | "topic">;
  readonly wsBadMessages: Counter<"stream" | "reason">;
  readonly httpRequests: Counter<"endpoint" | "status">;
  readonly httpRequestDuration: Histogram<"endpoint">;
  /** Rows of a venue list left out as unreadable (venue/tolerantRows.ts). */
  readonly restRowsSkipped: Counter<"endpoint">;
}

export function createVenueMetrics(registry: Registry, prefix: string): VenueMetrics {
  const { counter, gauge, histogram } = metricMakers(registry, prefix);
  const metrics: VenueMetrics = {
    wsConnected: gauge("ws_connected", "1 while the stream is authenticated (private) and subscribed, else 0", ["stream"]),
    degraded: gauge("degraded", "1 while the stream is degraded (down, refused or silent) and its data is read from REST", ["stream"]),
    wsReconnects: counter("ws_reconnects_total", "Stream reconnect attempts", ["stream"]),
    wsMessages: counter("ws_messages_total", "Data frames received per stream and topic", ["stream", "topic"]),
    wsBadMessages: counter("ws_bad_messages_total", `Frames dropped as invalid (${oneOf(BAD_MESSAGE_REASONS)})`, ["stream", "reason"]),
    httpRequests: counter("http_requests_total", "REST requests to the venue by path template and HTTP status ('error' = no response)", [
      "endpoint",
      "status",
    ]),
    httpRequestDuration: histogram("http_request_duration_seconds", "REST request duration by path template", ["endpoint"]),
    restRowsSkipped: counter(
      "rest_rows_skipped_total",
      "Rows of a venue list (open list, marks, leverages) left out as unreadable; the rest of the page is used",
      ["endpoint"],
    ),
  };
  // Series that alerts and panels compare with 0 must exist before the first event.
  for (const stream of STREAMS) {
    metrics.wsConnected.set({ stream }, 0);
    metrics.degraded.set({ stream }, 0);
    metrics.wsReconnects.inc({ stream }, 0);
  }
  return metrics;
}
