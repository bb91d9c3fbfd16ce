/**
 * SIGHUP: re-read the config and apply a valid one without touching connections: dry run, the
 * policy (its symbol lists included), the unwind settings (the unwinder reads them through the same
 * reloadable state, PolicyState.unwind), the shadows, and the protections' limits — re-armed only
 * when the `protections` section changed (`liquidator rearm` re-arms otherwise). Each changed key is
 * logged old → new, and `liquidator_config_reloads_total{result}` counts the reload; an invalid
 * config is logged and ignored. Keys outside those sections are logged as needing a restart, at
 * every reload until one happens.
 */
import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import { LIVE_SECTIONS, reloadPolicy } from "../config/reloadPolicy.js";
import type { Config } from "../config/schema.js";
import type { Claimer } from "../daemon/claim/claimer.js";
import type { ClaimSender } from "../daemon/claim/claimSender.js";
import type { PolicyState } from "../daemon/claim/policyState.js";
import { type ProtectionGuard, protectionLimits } from "../daemon/control/protectionGuard.js";
import type { Ingest } from "../daemon/feeds/ingest.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { LiveShadows } from "./shadowsAndCapture.js";

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
  /** What runs: the live sections as last applied, the rest as started (they apply after a restart). */
  let running: Config = loaded.config;
  return async () => {
    const result = await reloadPolicy(loaded.path, o.env, running);
    if (!result.ok) {
      metrics.configReloads.inc({ result: "refused" });
      logger.error({ key: result.error.key, err: result.error.message }, "config reload refused; keeping the running policy");
      return;
    }
    const next = result.config;
    // Ids decided while dry run was on sent nothing: once live they may be claimed (re-offered below).
    if (sender.dryRun && !result.policy.dry_run) o.claimer.forgetDryRun();
    sender.setDryRun(result.policy.dry_run);
    o.policy.applyPolicy(result.policy);
    o.policy.applyUnwind(next.unwind);
    o.ingest.offerAll();
    o.unwinder.kickAll();
    metrics.dryRun.set(result.policy.dry_run ? 1 : 0);
    metrics.exposureCap.set(result.policy.max_total_exposure);
    o.shadows.apply(result.loaded);
    // A routine policy tweak must not resume a halted day: only a changed protections section re-arms.
    if (result.changes.some((c) => c.key.startsWith("protections."))) o.guard.rearm(protectionLimits(next.protections), "config");
    for (const c of result.changes)
      logger.info({ key: c.key, from: c.from, to: c.to, applies: c.live ? "now" : "after a restart" }, "config key changed");
    if (result.needsRestart.length > 0)
      logger.warn(
        { keys: result.needsRestart },
        "config keys outside policy, unwind, protections and shadow changed; they apply after a restart",
      );
    running = { ...running, ...Object.fromEntries(LIVE_SECTIONS.map((s) => [s, next[s]])) };
    metrics.configReloads.inc({ result: "applied" });
    logger.info({ dryRun: result.policy.dry_run, changed: result.changes.length }, "policy reloaded");
  };
}
