/**
 * The shadow variants and the capture, both fed what the daemon sees, and the claim sender whose
 * transport tells them (and the capture, when on) what the live account claimed.
 */
import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import { ClaimSender, type ClaimTransport, type FundClaimTransport } from "../daemon/claim/claimSender.js";
import type { CaptureEvent, CaptureTap } from "../daemon/records/captureTap.js";
import type { AccountBook } from "../engine/accountBook.js";
import type { LeastRatios } from "../engine/leastRatio.js";
import type { MarkBook } from "../engine/marks.js";
import { capturingFundTransport, capturingTransport } from "../lab/capture/capturingTransport.js";
import { ownClaimsTransport, ownFundClaimsTransport } from "../lab/shadow/ownClaimsTransport.js";
import { ShadowFeed } from "../lab/shadow/shadowFeed.js";
import type { Metrics } from "../observe/metrics.js";
import type { RestClient } from "../venue/rest.js";
import { SupplyApi } from "../venue/supplyApi.js";

export interface ShadowsAndCapture {
  shadows: LiveShadows;
  /** What ingest records into: the capture (when on) and the shadows. */
  ingestTap: CaptureTap;
  sender: ClaimSender;
}

export function shadowsAndCapture(o: {
  loaded: LoadedConfig;
  metrics: Metrics;
  logger: Logger;
  account: AccountBook;
  marks: MarkBook;
  rest: RestClient;
  /** `state.capture`, when on. */
  capture: CaptureTap | undefined;
  /** Where a -1201's least ratio is kept for the decision made once more (PolicyState.leastRatios). */
  leastRatios?: LeastRatios;
}): ShadowsAndCapture {
  const { account, marks, rest } = o;
  // Shadow variants see what the capture sees, and the live claims as they leave (`liveShadows` below).
  const shadows = liveShadows({ loaded: o.loaded, metrics: o.metrics, logger: o.logger, collateral: () => account.totalCollateral(marks) });
  const ingestTap = shadows.ingestTap(o.capture);
  // The insurance fund's claims take their own endpoint and limiter (docs/protocol.md §10.3); the
  // capture and the shadows hear them as they hear liquidation claims.
  const supply = new SupplyApi(rest);
  const transport = o.capture === undefined ? rest : capturingTransport(rest, o.capture);
  const fund = o.capture === undefined ? supply : capturingFundTransport(supply, o.capture);
  const sender = new ClaimSender(shadows.transport(transport), o.loaded.config.policy.dry_run, o.leastRatios, shadows.fundTransport(fund));
  return { shadows, ingestTap, sender };
}

/**
 * `shadow.variants` in the daemon: the shadow feed (lab/shadow/shadowFeed.ts) fed by the same inputs as the
 * capture and told of the live account's claims, scored in `liquidator_shadow_*`; its replay runs in
 * a worker thread, ended with the daemon's run. Built whether or
 * not variants are configured, so a SIGHUP can start (or change, or stop) them without a restart.
 */
/** The backtest's defaults (`backtest --latency-ms`, `--slippage-bps`, `--taker-fee-bps`). */
const MODEL = { latencyMs: 50, slippageBps: 5, takerFeeBps: 5 };

export interface LiveShadows {
  /** What ingest records into: the capture (when on) and the shadows. */
  ingestTap(capture: CaptureTap | undefined): CaptureTap;
  /** The claim transports that tell the shadows what the live account claimed. */
  transport(inner: ClaimTransport): ClaimTransport;
  fundTransport(inner: FundClaimTransport): FundClaimTransport;
  /** SIGHUP: the reloaded config's variants (unchanged ones keep running as they are). */
  apply(loaded: LoadedConfig): void;
  /** Shutdown: the shadows' thread ends. */
  close(): Promise<void>;
}

function liveShadows(o: {
  loaded: LoadedConfig;
  metrics: Metrics;
  logger: Logger;
  /** The live account's total collateral now (the shadows' margin starts from it). */
  collateral?: () => number | undefined;
}): LiveShadows {
  const log = o.logger.child({ component: "shadow" });
  const feed = new ShadowFeed({
    model: MODEL,
    ...(o.collateral !== undefined ? { collateral: o.collateral } : {}),
    // Each shadow claim crosses from the shadows' thread only when it is logged.
    ...(log.isLevelEnabled("debug") ? { claimed: (variant: string, id: number) => log.debug({ variant, id }, "shadow claim") } : {}),
    dropped: (n) => o.metrics.shadow.dropped.inc(n),
    failed: (err) => log.error({ err }, "the shadow variants failed and stopped (claims are not affected); a SIGHUP starts them anew"),
  });
  o.metrics.shadow.setSource(() => ({ scores: feed.scores(), ...feed.cost(), queued: feed.queued }));
  const apply = (loaded: LoadedConfig): void => {
    const variants = loaded.shadows ?? [];
    feed.setVariants(variants);
    if (variants.length > 0)
      log.info({ variants: variants.map((v) => v.name), thread: feed.thread }, "shadow variants running (nothing is sent for them)");
  };
  apply(o.loaded);
  return {
    ingestTap: (capture) =>
      capture === undefined
        ? feed
        : {
            record: (event: CaptureEvent) => {
              capture.record(event);
              feed.record(event);
            },
          },
    transport: (inner) => ownClaimsTransport(inner, feed),
    fundTransport: (inner) => ownFundClaimsTransport(inner, feed),
    apply,
    close: () => feed.close(),
  };
}
