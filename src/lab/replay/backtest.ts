/**
 * `liquidator backtest`: two streamed passes over the captures. The first reads the recording
 * account's claim answers (the outcome model's inputs: its own takes and the venue's latency); the
 * second hands every event, in order, to the replay of the variants (replayMarket.ts). Nothing is held
 * whole in memory but the open book, the marks and each variant's state; the output depends only on
 * the inputs.
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import type { MarkBook } from "../../engine/marks.js";
import type { ReadStats } from "../capture/captureReader.js";
import { type NetComponents, RecordedAccount } from "../capture/recordedAccount.js";
import { readPreparedBatches } from "../prepared/preparedCapture.js";
import type { Variant } from "../sweep/variants.js";
import type { ForecastFigure } from "./forecastScore.js";
import { DEFAULT_LAB_COLLATERAL, describeLabAccount, type LabAccount } from "./labMargin.js";
import { replayInPasses } from "./replayPasses.js";
import type { ReplayModel, VariantResult } from "./replayVariant.js";

export interface BacktestOptions {
  files: readonly string[];
  variants: readonly Variant[];
  lenient?: boolean;
  /** Send → answer latency when the capture holds no claim answer to measure it from (ms). */
  defaultLatencyMs: number;
  /** Unwind fill distance from the mark, against us (bps); undefined: measured from the capture's own fills, else 5. */
  slippageBps?: number | undefined;
  /** Unwind taker fee (bps); undefined: measured from the capture's own fills, else 5. */
  takerFeeBps?: number | undefined;
  /** The account's collateral at the start, quote (`--collateral`; default labMargin.ts's 100,000). */
  collateral?: number;
  /** The account's margin settings (`--leverage`, `--imr-factor`, `--max-notional`); default 10× everywhere. */
  account?: LabAccount;
  /** Keep each variant's claimed ids in its result (`--ids`). */
  ids?: boolean;
  /** Replay every variant again at half and twice the claim latency (the report's sensitivity table). */
  sensitivity?: boolean;
  /**
   * Replay the variants that decide alike once (replayPasses.ts; default true). The report is the
   * same either way: false is for checking that.
   */
  group?: boolean;
  /**
   * Read each capture through its prepared binary form beside it, written on the first read
   * (preparedCapture.ts; default true). The report is the same either way.
   */
  prepare?: boolean;
}

/**
 * A variant's net under its own assumptions moved: `net[i][j]` at `latency_ms[i]` and
 * `slippage_bps[j]` (the middle ones are the report's); the latency rows other than the middle one
 * are null unless the backtest ran with `sensitivity`.
 */
export interface Sensitivity {
  latency_ms: number[];
  slippage_bps: number[];
  net: (number[] | null)[];
}

export type VariantReport = VariantResult & { sensitivity: Sensitivity; same_as: string | null };

export interface BacktestReport {
  captures: string[];
  events: number;
  bad_lines: number;
  model: {
    latency_ms: number;
    latency_source: "measured" | "assumed";
    latency_samples: number;
    own_takes: number;
    unwind_slippage_bps: number;
    taker_fee_bps: number;
    /** Where the unwind costs come from: the recording account's own trades, or options and defaults. */
    unwind_source: "measured" | "assumed";
    /** Assumed because `--slippage-bps` and `--taker-fee-bps` were given (else: the capture held no unwind). */
    unwind_given?: boolean;
    unwind_samples: number;
    /** Starting collateral the margin limits are checked against (quote). */
    collateral?: number;
    /** The account's margin settings (docs/protocol.md §10). */
    account?: LabAccount;
  };
  /**
   * What the recording account got, by component (its own assignments and unwind trades in the
   * capture; open positions at the last mark): absent when the capture holds none.
   */
  recorded?: NetComponents & { claims: number };
  assumptions: string[];
  /** Time of the first and last event replayed (ms). */
  started_at: number;
  ended_at: number;
  variants: VariantReport[];
  /** The liquidation heatmap's recall and precision, per capture that holds its polls (forecastScore.ts). */
  forecast?: ForecastFigure[];
}

/** The kinds the first pass reads: the recording account's own answers, assignments and trades. */
const OWN_KINDS: readonly CaptureEvent["k"][] = ["claim", "assigned", "fill"];

/** Unwind costs assumed when neither the options nor the capture give them (bps). */
const ASSUMED_UNWIND_BPS = 5;

async function* events(
  files: readonly string[],
  read: { lenient: boolean; prepare: boolean },
  stats: ReadStats,
  only?: readonly CaptureEvent["k"][],
): AsyncGenerator<CaptureEvent[]> {
  for (const file of files) yield* readPreparedBatches(file, only === undefined ? { ...read, stats } : { ...read, stats, only });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function assumptionsOf(m: BacktestReport["model"]): string[] {
  return [
    `Claim answers land ${m.latency_ms} ms after the send (${m.latency_source === "measured" ? `median of ${m.latency_samples} claim answers in the capture` : "assumed: the capture holds no claim answer"}).`,
    "A claim wins unless the capture shows its liquidation taken or changed by someone else before the answer lands; changes after the recording account's own accepted claim are that claim's.",
    "Competitors do not react to our claims: what they took in the capture they take at the same time in every variant, and nothing else; a liquidation the recording account took stays open to a variant until it claims it (or 10 minutes pass).",
    "Claims leave at the configured claims rate (the daemon's limiter spacing), best expected fee first, each re-decided when it leaves.",
    `Unwinds: the daemon's planUnwind slices at the orders rate, each filling whole at the recorded mark ${m.unwind_slippage_bps} bps against us (capped by unwind.max_slippage_bps), paying ${m.taker_fee_bps} bps taker fee (${m.unwind_source === "measured" ? `measured from the recording account's ${m.unwind_samples} unwind trades in the capture` : "assumed"}); held symbols and unwind.mode off keep positions, valued at the last mark.`,
    "The account starts flat and knows no claim from before the capture; the liquidator fee is the fee rate of the claimed notional at the mark when the answer lands.",
    ...(m.collateral !== undefined
      ? [
          `Margin: the account starts with ${m.collateral} of collateral plus the liquidator fees the variant earns (not its unwind P&L), at ${describeLabAccount(m.account)}; each claim is checked against policy.max_margin_usage and policy.min_free_collateral by the daemon's own code.`,
        ]
      : []),
  ];
}

export async function backtest(o: BacktestOptions): Promise<BacktestReport> {
  const read = { lenient: o.lenient === true, prepare: o.prepare !== false };
  const ownTakes = new Map<number, number>();
  const latencies: number[] = [];
  const first: ReadStats = { events: 0, badLines: 0 };
  const recorded = new RecordedAccount();
  for await (const batch of events(o.files, read, first, OWN_KINDS)) {
    for (const ev of batch) {
      if (ev.k !== "claim") {
        recorded.take(ev);
        continue;
      }
      if (Number.isFinite(ev.sentAt) && ev.at >= ev.sentAt) latencies.push(ev.at - ev.sentAt);
      if (ev.code === 0 && !ownTakes.has(ev.id)) ownTakes.set(ev.id, ev.sentAt);
    }
  }
  const measured = latencies.length > 0;
  const own = recorded.unwinds();
  const slippageBps = o.slippageBps ?? own?.slippage_bps ?? ASSUMED_UNWIND_BPS;
  const takerFeeBps = o.takerFeeBps ?? own?.taker_fee_bps ?? ASSUMED_UNWIND_BPS;
  const unwindMeasured = own !== undefined && (o.slippageBps === undefined || o.takerFeeBps === undefined);
  const model: ReplayModel = {
    latencyMs: measured ? median(latencies) : o.defaultLatencyMs,
    ownTakes,
    slippageBps,
    altSlippageBps: [slippageBps / 2, slippageBps * 2],
    takerFeeBps,
    keepIds: o.ids === true,
    collateral: o.collateral ?? DEFAULT_LAB_COLLATERAL,
    ...(o.account !== undefined ? { account: o.account } : {}),
  };
  const latencies3 = [model.latencyMs / 2, model.latencyMs, model.latencyMs * 2];
  // The variants at the other latencies replay beside the report's, from the same passes.
  const models = (o.sensitivity === true ? latencies3 : [model.latencyMs]).map((latencyMs) => ({
    ...model,
    latencyMs,
    keepIds: model.keepIds && latencyMs === model.latencyMs,
  }));
  const main = o.sensitivity === true ? 1 : 0;
  const stats: ReadStats = { events: 0, badLines: 0 };
  let startedAt = Number.NaN;
  let endedAt = Number.NaN;
  let marks: MarkBook | undefined;
  const replayed = await replayInPasses(o.variants, models, o.group !== false, async (markets) => {
    // Every pass reads the same events: the first one's counts and times are the report's.
    const first = marks === undefined;
    const passStats: ReadStats = first ? stats : { events: 0, badLines: 0 };
    for await (const batch of events(o.files, read, passStats)) {
      if (first && batch.length > 0) {
        if (Number.isNaN(startedAt)) startedAt = (batch[0] as CaptureEvent).at;
        endedAt = Math.max(Number.isNaN(endedAt) ? Number.NEGATIVE_INFINITY : endedAt, (batch[batch.length - 1] as CaptureEvent).at);
      }
      for (const market of markets) for (const ev of batch) market.step(ev);
    }
    marks ??= markets[0]?.marks;
  });
  const m: BacktestReport["model"] = {
    latency_ms: model.latencyMs,
    latency_source: measured ? "measured" : "assumed",
    latency_samples: latencies.length,
    own_takes: ownTakes.size,
    unwind_slippage_bps: slippageBps,
    taker_fee_bps: takerFeeBps,
    unwind_source: unwindMeasured ? "measured" : "assumed",
    unwind_given: o.slippageBps !== undefined && o.takerFeeBps !== undefined,
    unwind_samples: unwindMeasured ? (own?.samples ?? 0) : 0,
    collateral: model.collateral,
    ...(model.account !== undefined ? { account: model.account } : {}),
  };
  const components = recorded.components((s) => marks?.price(s));
  return {
    captures: [...o.files],
    events: stats.events,
    bad_lines: stats.badLines,
    model: m,
    ...(components !== undefined ? { recorded: { claims: recorded.claims, ...components } } : {}),
    assumptions: assumptionsOf(m),
    started_at: startedAt,
    ended_at: endedAt,
    variants: withSensitivity(
      replayed.results[main] as VariantResult[],
      models.length === 3 ? replayed.results.map((r, i) => (i === main ? undefined : r)) : undefined,
      {
        latency_ms: latencies3,
        slippage_bps: [slippageBps / 2, slippageBps, slippageBps * 2],
      },
    ),
  };
}

function rowOf(v: VariantResult): number[] {
  return [v.net_at_alt_slippage[0] as number, v.estimated_net, v.net_at_alt_slippage[1] as number];
}

function withSensitivity(
  main: VariantResult[],
  others: (VariantResult[] | undefined)[] | undefined,
  axes: { latency_ms: number[]; slippage_bps: number[] },
): VariantReport[] {
  return main.map((v, i) => {
    const net = [0, 1, 2].map((k) => {
      if (k === 1) return rowOf(v);
      const r = others?.[k]?.[i];
      return r === undefined ? null : rowOf(r);
    });
    return { ...v, sensitivity: { ...axes, net }, same_as: null };
  });
}

/**
 * Variants identical in effect (the same claims in the same order and the same net: their lines
 * coincide on every chart) name the first of them in `same_as`.
 */
export function markIdentical(variants: VariantReport[]): void {
  const first = new Map<string, string>();
  for (const v of variants) {
    const key = `${v.effect}|${v.claimed}|${v.estimated_net}|${v.peak_exposure}`;
    const f = first.get(key);
    v.same_as = f ?? null;
    if (f === undefined) first.set(key, v.name);
  }
}
