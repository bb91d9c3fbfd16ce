/**
 * The one builder of the trading core and its claim desk: the live daemon (app/claimPath.ts), the
 * backtest's variants and the live shadows (lab/replay/replayVariant.ts) build them here, with the port of
 * their world: the store, the REST client and real timers; or a modelled venue in virtual time.
 */
import { ClaimDesk, type ClaimDeskOptions } from "./claimDesk.js";
import { claimLimiterOf } from "./fundSupply.js";
import { TradingCore, type TradingCoreOptions } from "./tradingCore.js";

export interface BuildCoreOptions extends Omit<TradingCoreOptions, "driver"> {
  desk: Omit<ClaimDeskOptions, "schedule" | "now" | "monotonic">;
}

export function buildTradingCore(o: BuildCoreOptions): { core: TradingCore; desk: ClaimDesk } {
  const { port } = o;
  const desk = new ClaimDesk({
    ...o.desk,
    limiter: claimLimiterOf(o.fundRoute ?? "claim_insurance_fund"),
    schedule: (ms, f) => port.schedule(ms, f),
    now: () => port.now(),
    monotonic: () => port.monotonic(),
  });
  const core = new TradingCore({ ...o, driver: desk });
  desk.bind(core);
  return { core, desk };
}
