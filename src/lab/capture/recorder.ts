/**
 * `liquidator record`: what a liquidator sees, captured, claiming nothing: the public stream
 * (`liquidation`, `markprices`) and the REST snapshots the daemon reads (symbol info with marks at
 * start and every `infoEveryMs`, then the open list and the marks every `readEveryMs`) and, when
 * asked, the heatmap's polls (the daemon's own poller). Frames are validated by the daemon's own
 * stream client; events go to a capture tap (captureQueue.ts).
 */

import { ForecastPoller, type ForecastPollerOptions } from "../../daemon/feeds/forecastPoller.js";
import type { CaptureTap } from "../../daemon/records/captureTap.js";
import { sleep } from "../../sleep.js";
import type { RestClient } from "../../venue/rest.js";
import { StreamClient, type StreamLogger } from "../../venue/stream.js";

export interface RecorderOptions {
  rest: Pick<RestClient, "info" | "futures" | "futuresStamped" | "allOpenLiquidations">;
  /** The liquidation heatmap's platform positions, polled every `intervalMs` as the daemon does (none: not recorded). */
  forecast?: { supply: ForecastPollerOptions["supply"]; intervalMs: number };
  /** Full public stream URL (`…/ws/stream/{account_id}`). */
  publicUrl: string;
  tap: CaptureTap;
  readEveryMs?: number;
  infoEveryMs?: number;
  logger?: StreamLogger;
  /** Called with each REST failure (the recorder goes on). */
  onError?: (what: string, err: unknown) => void;
  now?: () => number;
}

export async function runRecorder(o: RecorderOptions, signal: AbortSignal): Promise<void> {
  const now = o.now ?? Date.now;
  const tap = o.tap;
  const stream = new StreamClient({
    url: o.publicUrl,
    stream: "public",
    topics: ["liquidation", "markprices"],
    ...(o.logger !== undefined ? { logger: o.logger } : {}),
    onData: (data) => {
      if (data[0] === "liquidation") tap.record({ k: "liquidation", at: now(), data: data[1] });
      else if (data[0] === "markprices") tap.record({ k: "markprices", at: now(), data: data[1] });
    },
  });
  const streaming = stream.start(signal);
  const f = o.forecast;
  const forecasting =
    f === undefined
      ? Promise.resolve()
      : new ForecastPoller({
          supply: f.supply,
          intervalMs: f.intervalMs,
          allowList: () => [],
          allowed: () => true,
          mark: () => undefined,
          onPoll: (poll) =>
            tap.record({
              k: "forecast",
              at: poll.at,
              requestedAt: poll.requestedAt,
              marks: [...poll.marks].map(([symbol, price]) => ({ symbol, price })),
              levels: poll.levels,
            }),
          onResult: (result) => {
            if (result !== "ok") o.onError?.("forecast", new Error(`heatmap poll: ${result}`));
          },
          logger: { info: () => undefined, warn: () => undefined, debug: () => undefined },
          now,
        }).run(signal);
  const readEvery = o.readEveryMs ?? 1_000;
  const infoEvery = o.infoEveryMs ?? 60_000;
  let lastInfo = Number.NEGATIVE_INFINITY;
  while (!signal.aborted) {
    const requestedAt = now();
    try {
      if (requestedAt - lastInfo >= infoEvery) {
        const [info, futures] = await Promise.all([o.rest.info({ signal }), o.rest.futures({ signal })]);
        tap.record({ k: "info", at: now(), requestedAt, info, futures });
        lastInfo = requestedAt;
      } else {
        const futures = await o.rest.futuresStamped({ signal });
        tap.record({ k: "futures", at: now(), markAt: now(), rows: futures.data.rows });
      }
      const rows = await o.rest.allOpenLiquidations({ signal });
      tap.record({ k: "open", at: now(), requestedAt, rows });
    } catch (err) {
      if (signal.aborted) break;
      o.onError?.("rest", err);
    }
    await sleep(readEvery, signal).catch(() => undefined);
  }
  await streaming;
  await forecasting;
}
