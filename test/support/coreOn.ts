/**
 * The trading core, its claim desk and the live claimer over a given store and claim sender, as
 * the daemon builds them (app/claimPath.ts) minus the REST client: for tests and tools that drive a
 * claimer directly. The venue's record of claims cannot be read here (unknowns settle by the push,
 * the open list or the bound). Not a test file itself.
 */
import { buildTradingCore } from "../../src/core/buildCore.js";
import { CoreFold } from "../../src/core/coreFold.js";
import type { CoreObserver } from "../../src/core/corePort.js";
import type { TradingCore } from "../../src/core/tradingCore.js";
import { Claimer } from "../../src/daemon/claim/claimer.js";
import type { ClaimSender } from "../../src/daemon/claim/claimSender.js";
import type { OpenBook } from "../../src/daemon/feeds/openBook.js";
import type { Exposure } from "../../src/engine/exposure.js";
import type { PauseReason } from "../../src/engine/pauseReasons.js";
import type { Decision } from "../../src/engine/policy.js";
import type { PositionBook } from "../../src/engine/positionBook.js";
import type { Liquidation } from "../../src/engine/types.js";
import type { StateStore } from "../../src/store/stateStore.js";

export interface CoreOnOptions {
  decide: (liquidation: Liquidation, now: number) => Decision;
  book: OpenBook;
  exposure: Exposure;
  positions: PositionBook;
  store: Pick<StateStore, "intent" | "append" | "recover" | "mayLead">;
  sender: ClaimSender;
  acquire: (signal: AbortSignal) => Promise<void>;
  skipped?(reason: string): void;
  paused?(reason: PauseReason, on: boolean): void;
  observer?: Partial<CoreObserver>;
}

const noop = (): void => undefined;

export function coreOn(o: CoreOnOptions): { claimer: Claimer; core: TradingCore } {
  let claimer: Claimer | undefined;
  const { core, desk } = buildTradingCore({
    fold: new CoreFold(),
    exposure: o.exposure,
    positions: o.positions,
    port: {
      intent: (r) => o.store.intent(r),
      append: (r) => o.store.append(r),
      recover: () => o.store.recover(),
      mayLead: () => o.store.mayLead(),
      sendClaim: (body, dryRun, answered) => {
        o.sender.send(body, dryRun).then(answered, (error: unknown) => answered({ error }));
      },
      placeOrder: () => Promise.reject(new Error("no orders here")),
      readRecord: () => Promise.resolve({ ok: false, reason: "no record here", permanent: true }),
      requestPositions: noop,
      schedule: (ms, f) => {
        const t = setTimeout(f, ms);
        t.unref();
        return () => clearTimeout(t);
      },
      now: () => Date.now(),
      monotonic: () => performance.now(),
    },
    scope: () => "claimed",
    mark: () => undefined,
    orderWorking: () => false,
    changed: noop,
    desk: {
      decide: o.decide,
      book: o.book,
      dryRun: () => o.sender.dryRun,
      skipped: (reason) => o.skipped?.(reason),
      paused: (reason, on) => o.paused?.(reason, on),
      queued: (liquidation, d) => claimer?.hooks.queued(liquidation, d),
      wake: () => claimer?.hooks.wake(),
    },
    observer: {
      submitted: noop,
      decisionLatency: noop,
      result: noop,
      feeEarned: noop,
      settled: noop,
      traded: noop,
      unknown: noop,
      givenUp: noop,
      changed: noop,
      ...o.observer,
    },
    logger: { info: noop, warn: noop, error: noop },
  });
  claimer = new Claimer({ desk, acquire: o.acquire, dryRun: () => o.sender.dryRun });
  return { claimer, core };
}
