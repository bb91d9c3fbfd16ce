/**
 * Runs the preflight checks in the order README "Commands" lists them against the configured venue, with the daemon's
 * own signer, REST client, readers and stream client. A check that throws fails with the error's
 * message; every check runs (an earlier failure is named, later ones still say what they can).
 */
import type { VenueConnection } from "../app/venueConnection.js";
import { liveLimitProblems } from "../config/liveLimits.js";
import type { LoadedConfig } from "../config/loadConfig.js";
import { createVenueLimiters } from "../venue/limiters.js";
import { OrderApi } from "../venue/orderApi.js";
import { RestClient } from "../venue/rest.js";
import { Signer } from "../venue/signer.js";
import { accountCheck, keyCheck } from "./accountChecks.js";
import { type Check, type CheckResult, errorText, fail, isUnreachable, type PreflightContext, pass, unreachable, warn } from "./check.js";
import { leverageCheck } from "./leverageCheck.js";
import { claimProbeCheck, orderLookupProbeCheck, orderProbeCheck } from "./probeChecks.js";
import { clockCheck, restCheck, symbolsCheck } from "./restChecks.js";
import { privateStreamCheck, publicStreamCheck } from "./streamChecks.js";

export interface PreflightReport {
  venue: Record<string, unknown>;
  checks: CheckResult[];
}

const configCheck: Check = async (ctx) => {
  const v = ctx.loaded.config.venue;
  ctx.observed.config = {
    mode: v.mode,
    preset: v.preset ?? null,
    base_url: ctx.venue.baseUrl,
    ws_url: ctx.venue.wsUrl,
    ws_private_url: ctx.venue.wsPrivateUrl,
    header_prefix: v.header_prefix,
    account_id: ctx.venue.accountId,
    dry_run: ctx.loaded.config.policy.dry_run,
  };
  const text = `${v.mode} venue ${ctx.venue.baseUrl}, account ${ctx.venue.accountId}, key ${ctx.signer.publicKey}`;
  if (ctx.venue.simulated)
    return warn(
      `${text} (the embedded simulator)`,
      "set LIQUIDATOR_VENUE=live and LIQUIDATOR_VENUE_PRESET=orderly-testnet to ask a real venue",
      true,
    );
  // What `liquidator run` would refuse (exit 78) is said here, before anything else is asked.
  const unset = liveLimitProblems(ctx.loaded.config, ctx.loaded.given ?? new Set());
  if (unset.length > 0)
    return warn(
      `${text}; \`run\` will refuse to start: ${unset.map((p) => p.key).join(", ")} left to the built-in values`,
      "set them in the config file or the environment (config/live-example.yaml has conservative values)",
      false,
    );
  return pass(text);
};

const CHECKS: readonly [string, Check][] = [
  ["config", configCheck],
  ["clock", clockCheck],
  ["rest", restCheck],
  ["symbols", symbolsCheck],
  ["public_stream", publicStreamCheck],
  ["private_stream", privateStreamCheck],
  ["key", keyCheck],
  ["account", accountCheck],
  ["leverage", leverageCheck],
  ["claim_probe", claimProbeCheck],
  ["order_lookup_probe", orderLookupProbeCheck],
];

export async function runPreflight(o: {
  loaded: LoadedConfig;
  venue: VenueConnection;
  probeOrders: boolean;
  signal: AbortSignal;
  streamTimeoutMs?: number;
  onResult?: (r: CheckResult) => void;
}): Promise<PreflightReport> {
  const { venue, loaded } = o;
  const signer = new Signer({ secret: venue.secret, accountId: venue.accountId, headerPrefix: loaded.config.venue.header_prefix });
  const limiters = createVenueLimiters(loaded.config.venue.limits);
  // Reads retry once at most: a preflight reports what it saw, it does not wait out an outage.
  const rest = new RestClient({
    baseUrl: venue.baseUrl,
    signer,
    limiters,
    timeoutMs: loaded.config.venue.request_timeout_ms,
    retry: { retries: 1, minTimeoutMs: 200, maxTimeoutMs: 500 },
  });
  const ctx: PreflightContext = {
    loaded,
    venue,
    rest,
    orders: new OrderApi(rest),
    signer,
    signal: o.signal,
    observed: {},
    streamTimeoutMs: o.streamTimeoutMs ?? 15_000,
  };
  const checks = o.probeOrders ? [...CHECKS, ["order_probe", orderProbeCheck] as [string, Check]] : CHECKS;
  const results: CheckResult[] = [];
  try {
    for (const [name, check] of checks) {
      let r: Omit<CheckResult, "name">;
      try {
        r = await check(ctx);
      } catch (err) {
        // No answer at all: say so, with the host and port, not "check the key".
        r = isUnreachable(err) ? unreachable(venue.baseUrl, err) : fail(errorText(err), "see the detail; attach --json to a bug report");
      }
      const result = { name, ...r };
      results.push(result);
      o.onResult?.(result);
    }
  } finally {
    await rest.close().catch(() => undefined);
    await limiters.stop().catch(() => undefined);
  }
  return { venue: ctx.observed, checks: results };
}
