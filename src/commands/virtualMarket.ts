/**
 * `simulate --virtual-hours N --capture FILE`: the embedded venue's default market (the
 * position-driven one with the insurance fund, as `npm start` runs it for the same seed) in virtual
 * time, as fast as it computes, recorded as the daemon records what it sees: every `liquidation`
 * and `markprices` push, the symbol info at the start, the open list every 5 minutes and a heatmap poll
 * every `forecast.interval_s` (30 s) — its platform positions paged and checked by the venue
 * client's schemas and summed by the daemon's own code (daemon/feeds/forecastPoller.ts `forecastPoll`).
 * Nobody claims: every liquidation goes to the insurance fund at its TTL. This is what the lab's
 * forecast figure is measured on (docs/performance.md).
 */

import { forecastPoll, PAGE_LIMIT } from "../daemon/feeds/forecastPoller.js";
import type { CaptureEvent } from "../daemon/records/captureTap.js";
import { CaptureFiles } from "../lab/capture/captureFiles.js";
import { CaptureQueue } from "../lab/capture/captureQueue.js";
import { InsuranceFund } from "../sim/insuranceFund.js";
import type { MarketLiquidation } from "../sim/positionMarket.js";
import { PublicQuery } from "../sim/publicQuery.js";
import { POSITION_MARKET_SCENARIO, Scenario } from "../sim/scenario.js";
import { VenueCore } from "../sim/venueCore.js";
import { futuresData, infoData, liquidationList } from "../sim/venueReads.js";
import type { Futures, Info, OpenLiquidation } from "../venue/restSchemas.js";
import { checkRows, platformPositionSchema, platformPositionsPageSchema } from "../venue/supplySchemas.js";
import type { LiquidationEntry, MarkPrice } from "../venue/wire.js";

/** Monday 5 January 2026, 00:00 UTC: a virtual run's clock starts here, whatever the wall clock says. */
const VIRTUAL_START = Date.UTC(2026, 0, 5);
const OPEN_LIST_EVERY_S = 300;

export interface VirtualMarketOptions {
  file: string;
  hours: number;
  seed: number;
  /** The market's mean liquidations per second (default: the embedded default market's). */
  liquidationsPerSec?: number;
  /** Seconds between heatmap polls (default 30, `forecast.interval_s`). */
  forecastIntervalS?: number;
  /** The venue's truth, for tests: each liquidation with its account, and each poll's rows with theirs. */
  onLiquidation?: (l: MarketLiquidation, mark: (symbol: string) => number | undefined) => void;
  onPoll?: (at: number, rows: readonly Record<string, unknown>[]) => void;
}

export interface VirtualMarketStats {
  events: number;
  liquidations: number;
  polls: number;
}

export async function captureVirtualMarket(o: VirtualMarketOptions): Promise<VirtualMarketStats> {
  let clock = VIRTUAL_START;
  const core = new VenueCore({ seed: o.seed, now: () => clock });
  // As startSimulator builds the embedded venue: the same seed gives the same market.
  const fund = new InsuranceFund(core);
  const scenario = new Scenario(
    core,
    { ...POSITION_MARKET_SCENARIO, ...(o.liquidationsPerSec !== undefined ? { liquidationsPerSec: o.liquidationsPerSec } : {}) },
    undefined,
    fund,
  );
  fund.attach();
  const market = scenario.market;
  if (market === undefined) throw new Error("the default market is not the position-driven one");
  const query = new PublicQuery(core, () => market.population);
  const files = new CaptureFiles({ target: { mode: "single", path: o.file }, writer: "simulate", venue: "virtual" });
  const queue = new CaptureQueue(files, { maxQueued: 10_000_000, batchMs: 0 });
  const stats: VirtualMarketStats = { events: 0, liquidations: 0, polls: 0 };
  const record = (ev: CaptureEvent): void => {
    queue.record(ev);
    stats.events++;
  };
  core.onPush((push) => {
    if (push.scope !== "public") return;
    if (push.topic === "liquidation") record({ k: "liquidation", at: clock, data: push.data as LiquidationEntry[] });
    else if (push.topic === "markprices") record({ k: "markprices", at: clock, data: push.data as MarkPrice[] });
  });
  market.onLiquidation((l) => {
    stats.liquidations++;
    o.onLiquidation?.(l, (symbol) => core.mark(symbol));
  });
  record({ k: "info", at: clock, requestedAt: clock, info: infoData(core) as Info, futures: futuresData(core) as Futures });

  const interval = o.forecastIntervalS ?? 30;
  for (let s = 1; s <= o.hours * 3600; s++) {
    clock += 1000;
    market.step(1);
    core.publishMarks();
    core.expireDue();
    if (s % interval === 0) {
      const rows = pollPlatformPositions(query, clock);
      o.onPoll?.(clock, rows.wire);
      const poll = forecastPoll(
        rows.checked,
        (symbol) => core.mark(symbol),
        (symbol) => core.symbols.has(symbol),
        clock,
        clock,
      );
      record({
        k: "forecast",
        at: clock,
        requestedAt: clock,
        marks: [...poll.marks].map(([symbol, price]) => ({ symbol, price })),
        levels: poll.levels,
      });
      stats.polls++;
    }
    if (s % OPEN_LIST_EVERY_S === 0) record({ k: "open", at: clock, requestedAt: clock, rows: openList(core) });
    // Let the writer drain: a day is millions of lines.
    if (s % 60 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await queue.close();
  return stats;
}

/** Every page of platform positions, read as the venue client reads them. */
function pollPlatformPositions(query: PublicQuery, now: number) {
  const wire: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const answer = query.handle(
      "virtual",
      { type: "platformPositions", limit: PAGE_LIMIT, ...(cursor !== undefined ? { cursor } : {}) },
      now,
    );
    if (!answer.ok) throw answer.refusal;
    const page = platformPositionsPageSchema.parse(answer.value);
    wire.push(...(page.rows as Record<string, unknown>[]));
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return { wire, checked: checkRows(wire, platformPositionSchema).rows };
}

function openList(core: VenueCore): OpenLiquidation[] {
  const rows: OpenLiquidation[] = [];
  for (let page = 1; ; page++) {
    const answer = liquidationList(core, new URLSearchParams({ page: String(page), size: "500" }));
    if (!answer.ok) throw answer.refusal;
    rows.push(...answer.value.rows);
    if (answer.value.rows.length < 500) return rows;
  }
}
