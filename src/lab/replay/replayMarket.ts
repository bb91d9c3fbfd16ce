/**
 * What the variants of a replay share: the recorded market. The daemon's own input handling
 * (daemon/feeds/ingest.ts) reads each event once into one open book and one mark book, and what it asks of
 * a claimer or a policy goes to every variant's (ReplayVariant). Nothing a variant sees changes: the
 * books are written only here, after every variant has run what was due before the event and
 * before any runs what is due at it, so each variant meets the same book and marks it would have
 * kept alone. Mapping, reconciling and storing an event cost once, not once per variant.
 */

import { FundFeed } from "../../daemon/feeds/fundFeed.js";
import { Ingest } from "../../daemon/feeds/ingest.js";
import { OpenBook } from "../../daemon/feeds/openBook.js";
import { inlineSlices } from "../../daemon/feeds/sliceQueue.js";
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { Exposure } from "../../engine/exposure.js";
import { MarkBook } from "../../engine/marks.js";
import { PositionBook } from "../../engine/positionBook.js";
import type { SymbolTable } from "../../engine/symbolInfo.js";
import type { Liquidation } from "../../engine/types.js";
import type { LiquidationEntry, MarkPrice } from "../../venue/wire.js";
import type { Fork } from "../sweep/decisionGroup.js";
import type { Variant } from "../sweep/variants.js";
import { type ReplayModel, ReplayVariant, type VariantResult } from "./replayVariant.js";

export class ReplayMarket {
  readonly #variants: ReplayVariant[];
  /** The marks as replayed so far (the recorded account's open positions are valued at them). */
  readonly marks: MarkBook;
  readonly #ingest: Ingest;
  #now = 0;
  #offered = 0;

  /** `followers[i]`: the variants replayed as `variants[i]` while they decide alike (decisionGroup.ts). */
  constructor(variants: readonly Variant[], model: ReplayModel, followers: readonly (readonly Variant[])[] = []) {
    const route = variants[0]?.config.insurance_fund.route ?? "claim_insurance_fund";
    // The book holds the fund's rows as one route offers them; the callers refuse a mix (variants.ts, shadowVariants.ts).
    if ([...variants, ...followers.flat()].some((v) => v.config.insurance_fund.route !== route))
      throw new Error("a replay's variants share one insurance_fund.route");
    const book = new OpenBook();
    const marks = new MarkBook();
    this.marks = marks;
    const all = variants.map((v, i) => new ReplayVariant(v, model, { book, marks }, followers[i]));
    this.#variants = all;
    const claimers = all;
    const clock = () => this.#now;
    this.#ingest = new Ingest({
      book,
      marks,
      // Each call of the daemon's input handling, to every variant's claimer in turn.
      claimer: {
        offer: (liquidation: Liquidation) => {
          for (const c of claimers) c.offer(liquidation);
        },
        cancel: (id: number) => {
          for (const c of claimers) c.cancel(id);
        },
        retrySkipped: (reasons?: ReadonlySet<string>) => {
          for (const c of claimers) c.retrySkipped(reasons);
        },
        sweep: () => {
          for (const c of claimers) c.sweep();
        },
        // No replay counterpart: the daemon's claim-first send at the end of a frame is a permit
        // granted at the frame's own instant (ReplayVariant.after), and nothing pauses the input.
        sendNow: () => undefined,
        setPaused: () => undefined,
        pausedReasons: () => [],
      },
      // Each variant's core meets its own modelled venue: a capture holds no assignment push and no
      // position report, and outcomes are modelled, not settled from the open list.
      core: { assignment: () => undefined, openList: () => undefined, positionsPush: () => undefined, positionsSnapshot: () => [] },
      policy: {
        // Every variant's policy gets the same tables at the same time: the first one speaks for all.
        get symbolsLoaded() {
          return all[0]?.policy.symbolsLoaded ?? false;
        },
        applySymbols: (table: SymbolTable) => {
          for (const r of all) r.policy.applySymbols(table);
        },
      },
      // A capture holds no position frame or snapshot: each variant's positions are its own.
      positions: new PositionBook(new Exposure()),
      metrics: {
        liquidationsSeen: {
          inc: (n = 1) => {
            this.#offered += n;
          },
        },
      },
      logger: { info: () => undefined },
      now: clock,
      monotonic: clock,
      slices: inlineSlices,
      // The insurance fund's rows are on the shared book, as the variants' one route offers them; a
      // variant with the fund off is never offered them (ReplayVariant.offer).
      fund: new FundFeed({ route, price: (s) => marks.price(s) }),
    });
  }

  /** One recorded event, in capture order. */
  step(ev: CaptureEvent): void {
    const at = ev.at;
    const all = this.#variants;
    for (const r of all) r.before(at);
    if (at > this.#now) this.#now = at;
    const ingest = this.#ingest;
    // The frame's rows are handed as they are, not copied: Ingest only reads a frame (the capture
    // tap, the one thing that keeps one, is absent in a replay).
    switch (ev.k) {
      case "liquidation":
        ingest.stream(["liquidation", ev.data as LiquidationEntry[], undefined]);
        break;
      case "markprices":
        ingest.stream(["markprices", ev.data as MarkPrice[], undefined]);
        break;
      case "open":
        ingest.openList(ev.rows, ev.requestedAt);
        break;
      case "futures":
        ingest.restMarks(ev.rows, ev.markAt, 0);
        break;
      case "info":
        ingest.symbols(ev.info, ev.futures, ev.requestedAt);
        break;
      case "claim":
      case "assigned":
      case "fill":
        break; // the recording account's own results feed the models (backtest.ts), not the replay
      case "forecast":
        break; // scored on its own (lab/replay/forecastScore.ts), not an input of the daemon's decisions
    }
    const marksMoved = ev.k === "markprices";
    for (const r of all) r.after(at, marksMoved);
  }

  /** Each variant's claims won and net so far, in their order (the live shadows' scores). */
  scores(): { claims: number; net: number }[] {
    return this.#variants.map((r) => ({ claims: r.claimed, net: r.netNow() }));
  }

  /** Runs what is still due in every variant and summarises each, in their order. */
  results(): VariantResult[] {
    return this.#variants.map((r) => r.result(this.#offered));
  }

  /** `results`, each with its followers' results or forks, in their order. */
  groupResults(): { result: VariantResult; followers: ({ result: VariantResult } | { fork: Fork })[] }[] {
    return this.#variants.map((r) => {
      const result = r.result(this.#offered);
      return { result, followers: r.followerResults(result) };
    });
  }
}
