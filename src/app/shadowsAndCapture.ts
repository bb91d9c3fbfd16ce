/**
 * The shadow variants and the capture, both fed what the daemon sees, and the claim sender whose
 * transport tells them (and the capture, when on) what the live account claimed.
 */
import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import type { CaptureTap } from "../daemon/captureTap.js";
import { ClaimSender } from "../daemon/claimSender.js";
import type { AccountBook } from "../engine/accountBook.js";
import type { LeastRatios } from "../engine/leastRatio.js";
import type { MarkBook } from "../engine/marks.js";
import { capturingTransport } from "../lab/claimTap.js";
import type { Metrics } from "../observe/metrics.js";
import type { RestClient } from "../venue/rest.js";
import { SupplyApi } from "../venue/supplyApi.js";
import { type LiveShadows, liveShadows } from "./liveShadows.js";

export interface ShadowsAndCapture {
  shadows: LiveShadows;
  /** What ingest records into: the capture (when on) and the shadows. */
  capture: CaptureTap;
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
  // Shadow variants see what the capture sees, and the live claims as they leave (liveShadows.ts).
  const shadows = liveShadows({ loaded: o.loaded, metrics: o.metrics, logger: o.logger, collateral: () => account.totalCollateral(marks) });
  const capture = shadows.tap(o.capture);
  const transport = o.capture === undefined ? rest : capturingTransport(rest, o.capture);
  // The insurance fund's claims take their own endpoint and limiter (PROTOCOL §10).
  const fund = new SupplyApi(rest);
  const sender = new ClaimSender(shadows.transport(transport), o.loaded.config.policy.dry_run, o.leastRatios, fund);
  return { shadows, capture, sender };
}
