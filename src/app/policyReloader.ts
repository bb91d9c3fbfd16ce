/**
 * SIGHUP: re-read the config and apply a valid new policy without touching connections (dry run,
 * policy, shadows, protections' limits); log and ignore an invalid one.
 */
import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import { reloadPolicy } from "../config/reloadPolicy.js";
import type { Claimer } from "../daemon/claimer.js";
import type { ClaimSender } from "../daemon/claimSender.js";
import type { Ingest } from "../daemon/ingest.js";
import type { PolicyState } from "../daemon/policyState.js";
import { type ProtectionGuard, protectionLimits } from "../daemon/protectionGuard.js";
import type { Unwinder } from "../daemon/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { LiveShadows } from "./liveShadows.js";

export function policyReloader(o: {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  metrics: Metrics;
  sender: ClaimSender;
  claimer: Claimer;
  policy: PolicyState;
  ingest: Ingest;
  unwinder: Unwinder;
  shadows: LiveShadows;
  guard: ProtectionGuard;
}): () => Promise<void> {
  const { loaded, logger, metrics, sender } = o;
  return async () => {
    const result = await reloadPolicy(loaded.path, o.env, loaded.config);
    if (!result.ok) {
      logger.error({ key: result.error.key, err: result.error.message }, "config reload refused; keeping the running policy");
      return;
    }
    // Ids decided while dry run was on sent nothing: once live they may be claimed (re-offered below).
    if (sender.dryRun && !result.policy.dry_run) o.claimer.forgetDryRun();
    sender.setDryRun(result.policy.dry_run);
    o.policy.applyPolicy(result.policy);
    o.ingest.offerAll();
    o.unwinder.kickAll();
    metrics.dryRun.set(result.policy.dry_run ? 1 : 0);
    metrics.exposureCap.set(result.policy.max_total_exposure);
    o.shadows.apply(result.loaded);
    o.guard.rearm(protectionLimits(result.config.protections));
    if (result.needsRestart.length > 0)
      logger.warn({ keys: result.needsRestart }, "config keys outside policy changed; they apply after a restart");
    logger.info({ dryRun: result.policy.dry_run }, "policy reloaded");
  };
}
