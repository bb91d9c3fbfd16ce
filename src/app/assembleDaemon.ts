/**
 * The composition root of the daemon: builds every part from the validated config, the venue
 * connection and the replayed journal, and wires them. No part builds another; none is a
 * module-level singleton (the metrics registry included).
 */

import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import { reloadPolicy } from "../config/reloadPolicy.js";
import type { CaptureTap } from "../daemon/captureTap.js";
import { Claimer } from "../daemon/claimer.js";
import { claimObserver } from "../daemon/claimObserver.js";
import { ClaimRehearsal } from "../daemon/claimRehearsal.js";
import { ClaimSender } from "../daemon/claimSender.js";
import { Daemon, type DaemonLogger } from "../daemon/daemon.js";
import { Housekeeping } from "../daemon/housekeeping.js";
import { Ingest } from "../daemon/ingest.js";
import { KeyWatch } from "../daemon/keyWatch.js";
import { adoptJournal, Leadership } from "../daemon/leadership.js";
import { MarkoutSampler } from "../daemon/markoutSampler.js";
import { OpenBook } from "../daemon/openBook.js";
import { OpportunityLedger } from "../daemon/opportunityLedger.js";
import { OrderFills } from "../daemon/orderFills.js";
import { ledgerClaim } from "../daemon/pnlFromJournal.js";
import { PolicyState } from "../daemon/policyState.js";
import { type ProtectionGuard, protectionLimits } from "../daemon/protectionGuard.js";
import { RestHealth } from "../daemon/restHealth.js";
import { gatedPermit, gatedTryPermit, SliceQueue } from "../daemon/sliceQueue.js";
import type { TradingStateName } from "../daemon/tradingState.js";
import { Unwinder } from "../daemon/unwinder.js";
import { UnwindSettings } from "../daemon/unwindSettings.js";
import { AccountBook } from "../engine/accountBook.js";
import { Exposure } from "../engine/exposure.js";
import { marginParamsOf } from "../engine/margin.js";
import { MarkBook } from "../engine/marks.js";
import { PnlLedger } from "../engine/pnlLedger.js";
import { PositionBook } from "../engine/positionBook.js";
import { capturingTransport } from "../lab/claimTap.js";
import type { Metrics } from "../observe/metrics.js";
import { RewardsPoller } from "../observe/rewardsPoller.js";
import type { Watchdog } from "../observe/watchdog.js";
import type { JournalReplay } from "../store/journalRecords.js";
import type { StateStore } from "../store/stateStore.js";
import { readKeyInfo } from "../venue/keyInfo.js";
import { createVenueLimiters, LIMITER_NAMES } from "../venue/limiters.js";
import { OrderApi } from "../venue/orderApi.js";
import { RestClient } from "../venue/rest.js";
import { Signer } from "../venue/signer.js";
import { liveShadows } from "./liveShadows.js";
import { protectionGuard } from "./protectionControl.js";
import { tradingControl } from "./tradingControl.js";
import { unwindScope } from "./unwindScope.js";
import type { VenueConnection } from "./venueConnection.js";

/** Stream and loop timing overrides (tests). */
export interface DaemonTiming {
  reconcileIntervalMs?: number;
  pingIntervalMs?: number;
  deadAfterMs?: number;
  backoff?: { initialMs: number; maxMs: number; healthyMaxMs?: number; authInitialMs?: number; authMaxMs?: number };
  /** Server-time samples older than this pause claiming (default 120 s). */
  clockMaxAgeMs?: number;
  /** How often a failed journal is retried (default 10 s). */
  journalRetryMs?: number;
  /** Delays of the markout horizons 1s..300s, ms (default their names; tests shorten them). */
  markoutDelaysMs?: readonly number[];
}

export interface AssembledDaemon {
  daemon: Daemon;
  /** The lease's events go here (PostgreSQL); undefined for a single daemon on the file journal. */
  leadership: Leadership | undefined;
  publicKey: string;
  /** Runs until `signal` aborts, then drains and closes what it opened (not the journal or the venue). */
  run(signal: AbortSignal): Promise<void>;
  /** SIGHUP: apply a valid new policy without touching connections; log and ignore an invalid one. */
  reload(): Promise<void>;
  /** SIGUSR2: claim nothing new, unwind what claims assigned until flat, then `run` returns. */
  drain(): void;
  /** `/readyz` details: the trading state and the positions no claim explains. */
  details(): {
    venue: "simulator" | "live";
    trading_state: TradingStateName;
    trading_state_reason?: string;
    unexplained_positions: object[];
  };
}

export function assembleDaemon(o: {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  venue: VenueConnection;
  store: StateStore;
  replay: JournalReplay;
  metrics: Metrics;
  watchdog: Watchdog;
  logger: Logger;
  timing: DaemonTiming | undefined;
  /** `state.capture`: what the daemon sees also goes to a capture (docs/policy-lab.md). */
  capture?: CaptureTap | undefined;
}): AssembledDaemon {
  const { loaded, venue, metrics, logger, timing } = o;
  const config = loaded.config;
  const { store, replay } = o;
  const signer = new Signer({ secret: venue.secret, accountId: venue.accountId, headerPrefix: config.venue.header_prefix });
  const limiters = createVenueLimiters(config.venue.limits);
  metrics.setLimiterSource(() => LIMITER_NAMES.map((limiter) => ({ limiter, queued: limiters.queued(limiter) })));
  const restHealth = new RestHealth();
  // Any symbol's one-row info: the cheapest public read, once the symbol table is known.
  let warmUpPath = (): string | undefined => undefined;
  const rest = new RestClient({
    baseUrl: venue.baseUrl,
    signer,
    limiters,
    timeoutMs: config.venue.request_timeout_ms,
    onRequest: (endpoint, status, seconds) => {
      restHealth.record(status);
      metrics.httpRequests.inc({ endpoint, status: String(status) });
      metrics.httpRequestDuration.observe({ endpoint }, seconds);
    },
    warmUpPath: () => warmUpPath(),
    onClaimLane: (kind) => metrics.claimConnections.inc({ kind }),
  });

  const marks = new MarkBook();
  const exposure = new Exposure();
  const book = new OpenBook();
  // The account's collateral and margin inputs (PROTOCOL §7), fed by ingest; the decision checks
  // the margin limits against it and the metrics read it at scrape.
  const account = new AccountBook();
  const policy = new PolicyState(config.policy, marks, exposure, account);
  warmUpPath = () => {
    const first = policy.context.symbols.values().next();
    return first.done ? undefined : `/v1/public/info/${first.value.symbol}`;
  };
  const positions = new PositionBook(exposure);
  metrics.setMarkSource(() =>
    marks.snapshot().map((m) => ({ symbol: m.symbol, price: m.price, ageSeconds: (Date.now() - m.receivedAt) / 1000 })),
  );
  metrics.setExposureSource(() => exposure.symbols().map((symbol) => ({ symbol, value: exposure.symbolNotional(symbol, marks) })));
  // Shadow variants see what the capture sees, and the live claims as they leave (liveShadows.ts).
  const shadows = liveShadows({ loaded, metrics, logger, collateral: () => account.totalCollateral(marks) });
  const capture = shadows.tap(o.capture);
  const transport = o.capture === undefined ? rest : capturingTransport(rest, o.capture);
  const sender = new ClaimSender(shadows.transport(transport), config.policy.dry_run);
  metrics.dryRun.set(config.policy.dry_run ? 1 : 0);
  metrics.venueSimulated.set(config.venue.mode === "simulator" ? 1 : 0);
  metrics.exposureCap.set(config.policy.max_total_exposure);
  const ledger = new PnlLedger({ keepClosedClaims: false, closed: (c) => guard.claimClosed(c) });
  const markouts = new MarkoutSampler({
    marks,
    maxMarkAgeMs: () => policy.maxMarkAgeMs,
    write: (record) => store.append(record),
    observe: (horizon, bps) => metrics.markoutBps.observe({ horizon }, bps),
    now: Date.now,
    ...(timing?.markoutDelaysMs !== undefined ? { delaysMs: timing.markoutDelaysMs } : {}),
    logger: logger.child({ component: "markouts" }),
  });
  const scope = unwindScope({
    scope: config.unwind.scope,
    positions,
    store,
    metrics,
    kick: (symbol, mode) => unwinder.kick(symbol, mode),
    logger: logger.child({ component: "unwinder" }),
  });
  // Big frames are offered in slices; the claims pump waits for a sliced frame's end (sliceQueue.ts).
  const ingestLog = logger.child({ component: "ingest" });
  const slices = new SliceQueue(100, (err) => ingestLog.error({ err }, "an offer failed in a sliced frame"));
  const opportunities = new OpportunityLedger({
    store,
    price: (symbol) => marks.price(symbol),
    settled: (outcome, reason, value) => {
      metrics.opportunities.inc({ outcome, reason });
      metrics.opportunityValue.inc({ outcome, reason }, value);
    },
    failed: (err) => ingestLog.warn({ err: (err as Error).message }, "opportunity ledger records not written"),
  });
  const claimer = new Claimer({
    decide: policy.decide,
    book,
    exposure,
    positions,
    acquire: gatedPermit(slices, (s) => limiters.acquire("claims", s)),
    tryAcquire: gatedTryPermit(slices, () => limiters.tryAcquire("claims")),
    sender,
    wire: rest,
    // The ledger reads the claim records as they are written (intents, outcomes).
    store: opportunities.tap(store),
    opportunities,
    gate: (liquidation) => guard.gate(liquidation),
    observer: {
      ...claimObserver(metrics),
      settled: (id, fills) => {
        const at = Date.now();
        ledgerClaim(ledger, id, fills, at);
        markouts.assigned(id, fills, at);
        scope.claimed.claim(id, fills);
        o.capture?.record({ k: "assigned", at: Date.now(), id, fills });
        guard.check();
      },
      acceptedUnsized: (id, requested) => scope.claimed.claimRequested(id, requested),
    },
    logger: logger.child({ component: "claimer" }),
    // -1101: the model was wrong; the positions read says what the venue counts (accountRead below).
    rereadAccount: () => daemon.requestPositions(),
  });
  // Held positions come from the venue only: nothing is claimed until GET /v1/positions answered.
  claimer.setPaused("positions", true);
  const orderApi = new OrderApi(rest);
  const unwinder = new Unwinder({
    orders: orderApi,
    positions,
    marks,
    symbols: () => policy.context.symbols,
    settings: new UnwindSettings(config.unwind),
    dryRun: () => sender.dryRun,
    store: {
      intent: (record) => {
        if (record.t === "order_intent") scope.claimed.orderIntent(record.clientOrderId, record.marginMode);
        return store.intent(record);
      },
      append: (record) => store.append(record),
      mayLead: () => store.mayLead(),
    },
    target: scope.target,
    fills: new OrderFills({
      journal: (record) => {
        store.append(record);
        if (record.t === "order_fill") {
          scope.claimed.fill(record);
          // The ledger takes the fill after it is journaled: observe once it has.
          queueMicrotask(() => guard.check());
        }
      },
      ledger,
      positions,
      observer: {
        slippage: (bps) => metrics.unwind.slippageBps.observe(bps),
        traded: (symbol, qty, price, fee, mark) => o.capture?.record({ k: "fill", at: Date.now(), symbol, qty, price, fee, mark }),
      },
      now: Date.now,
    }),
    observer: {
      order: (result) => metrics.unwind.ordersTotal.inc({ result }),
      timeToFlat: (seconds) => metrics.unwind.timeToFlat.observe(seconds),
      halted: (symbol, on) => metrics.unwind.halted.set({ symbol }, on ? 1 : 0),
      unsettled: () => metrics.unwind.ordersUnsettled.inc(),
    },
    logger: logger.child({ component: "unwinder" }),
    requestPositions: () => daemon.requestPositions(),
    readPositions: async (signal) => ingest.restPositions(await rest.positions({ signal })),
    clientOrderIdPrefix: store.orderIdPrefix,
  });
  const { trading, drain, drained } = tradingControl({
    claimer,
    unwinder,
    positions,
    target: scope.target,
    metrics,
    logger,
  });
  // Before the journal is adopted: the ledger's rebuild and the protections' last state go through it.
  const guard: ProtectionGuard = protectionGuard({ config: config.protections, ledger, marks, trading, store, claimer, metrics, logger });
  if (store.kind === "file") {
    // One process owns the journal: what it says holds from the start.
    const adopted = adoptJournal(replay, { claimer, unwinder, ledger, claimed: scope.claimed, markouts, protections: guard });
    if (adopted.ids > 0) logger.info(adopted, "journal replayed: these ids are never claimed again");
    metrics.leader.set(1);
  }
  // Replicas (PostgreSQL): nothing is sent until the lease is held and the shared journal replayed.
  const leadership =
    store.kind === "postgres"
      ? new Leadership({
          replay: () => store.replay(),
          claimer,
          unwinder,
          ledger,
          claimed: scope.claimed,
          markouts,
          protections: guard,
          onRole: (leader) => metrics.leader.set(leader ? 1 : 0),
          logger: logger.child({ component: "leadership" }),
        })
      : undefined;
  metrics.unwind.setOpenSource(() => unwinder.openPositions());
  // position{symbol} stays one series per symbol: the sum over its margin modes.
  metrics.unwind.setPositionSource(() => exposure.symbols().map((symbol) => ({ symbol, qty: exposure.netQty(symbol) })));
  metrics.unwind.setPnlSource(() => {
    const t = ledger.totals();
    return {
      liquidator_fee: t.liquidatorFee,
      trading: t.trading,
      fees: t.fees,
      net: t.net,
      unrealized: ledger.unrealized((s) => marks.price(s)),
    };
  });
  // A position that shrank (an unwind fill) frees exposure and margin: liquidations skipped at the cap
  // or for margin are re-decided at once.
  const exposureSkips = new Set(["exposure_cap", "margin"]);
  positions.onChange((_symbol, qty, before) => {
    if (Math.abs(qty) < Math.abs(before)) claimer.retrySkipped(exposureSkips);
  });
  // A claim answered before any report of its symbol: the venue's positions say which margin mode
  // it landed in (and so which position to unwind); read them now rather than at the next period.
  positions.onPending(() => daemon.requestPositions());
  const marginParams = (symbol: string) => marginParamsOf(policy.context.symbols.get(symbol));
  metrics.setAccountSource(() => ({
    total: account.totalCollateral(marks),
    free: account.freeCollateral(marginParams, marks) ?? account.reported.freeCollateral,
    usage: account.marginUsage(marginParams, marks),
  }));
  const ingest = new Ingest({
    book,
    marks,
    claimer,
    positions,
    account,
    policy,
    metrics,
    logger: ingestLog,
    slices,
    orders: unwinder,
    positionsRead: (first) => {
      scope.positionsRead(first);
      claimer.accountRead();
    },
    opportunities,
    capture,
    corrected: (c) => {
      metrics.unwind.positionsCorrected.inc({ symbol: c.symbol });
      logger.warn(c, "the venue's positions differ from what the daemon held: the venue's are taken");
    },
  });

  const rehearsalLog = logger.child({ component: "rehearsal" });
  const rehearsal = new ClaimRehearsal({
    claimer,
    intervalMs: config.venue.claim_rehearsal_ms,
    // Claims queued for permits (a cascade): their own sends and the frame slices keep the path warm.
    idle: () => claimer.pendingCount === 0,
    onRun: () => metrics.claimRehearsals.inc(),
    onError: (err) => rehearsalLog.error({ err: err.message }, "the claim rehearsal failed and stopped (claims are not affected)"),
  });
  const daemon = new Daemon({
    rest,
    rehearsal,
    signer,
    publicUrl: `${venue.wsUrl}/ws/stream/${venue.accountId}`,
    privateUrl: `${venue.wsPrivateUrl}/v2/ws/private/stream/${venue.accountId}`,
    policy,
    ingest,
    marks,
    claimer,
    metrics,
    watchdog: o.watchdog,
    restHealth,
    publicPerSecond: config.venue.limits.public_per_second,
    housekeeping: new Housekeeping({
      clock: signer.clock,
      journal: store,
      claimer,
      logger: logger.child({ component: "housekeeping" }),
      ...(timing?.clockMaxAgeMs !== undefined ? { clockMaxAgeMs: timing.clockMaxAgeMs } : {}),
      ...(timing?.journalRetryMs !== undefined ? { journalRetryMs: timing.journalRetryMs } : {}),
    }),
    logger: logger.child({ component: "daemon" }) as DaemonLogger,
    ...(timing?.reconcileIntervalMs !== undefined ? { reconcileIntervalMs: timing.reconcileIntervalMs } : {}),
    stream: {
      ...(timing?.pingIntervalMs !== undefined ? { pingIntervalMs: timing.pingIntervalMs } : {}),
      ...(timing?.deadAfterMs !== undefined ? { deadAfterMs: timing.deadAfterMs } : {}),
      ...(timing?.backoff !== undefined ? { backoff: timing.backoff } : {}),
    },
  });
  const poller = new RewardsPoller({
    source: rest,
    metrics,
    intervalMs: config.rewards.poll_interval_ms,
    ...(config.rewards.campaign ? { campaign: config.rewards.campaign } : {}),
    logger: logger.child({ component: "rewards" }),
  });

  const keyWatch = new KeyWatch({
    read: (signal) => readKeyInfo(rest, { signal }),
    publicKey: signer.publicKey,
    onExpiry: (seconds) => metrics.keyExpiry.set(seconds),
    logger: logger.child({ component: "key" }),
  });

  return {
    daemon,
    leadership,
    publicKey: signer.publicKey,
    run: async (outer) => {
      const signal = AbortSignal.any([outer, drained]);
      try {
        // Before anything is claimed: a key that cannot claim or unwind stops the start (exit 78).
        await keyWatch.check(signal);
        const polling = poller.start(signal);
        const keys = keyWatch.run(signal);
        const stopGuard = guard.start();
        await daemon.run(signal).finally(stopGuard);
        drain.stop();
        await unwinder.stop();
        await polling;
        await keys;
      } finally {
        opportunities.flush();
        markouts.stop();
        await rest.close().catch(() => undefined);
        await limiters.stop().catch(() => undefined);
      }
    },
    reload: async () => {
      const result = await reloadPolicy(loaded.path, o.env, loaded.config);
      if (!result.ok) {
        logger.error({ key: result.error.key, err: result.error.message }, "config reload refused; keeping the running policy");
        return;
      }
      // Ids decided while dry run was on sent nothing: once live they may be claimed (re-offered below).
      if (sender.dryRun && !result.policy.dry_run) claimer.forgetDryRun();
      sender.setDryRun(result.policy.dry_run);
      policy.applyPolicy(result.policy);
      ingest.offerAll();
      unwinder.kickAll();
      metrics.dryRun.set(result.policy.dry_run ? 1 : 0);
      metrics.exposureCap.set(result.policy.max_total_exposure);
      shadows.apply(result.loaded);
      guard.rearm(protectionLimits(result.config.protections));
      if (result.needsRestart.length > 0)
        logger.warn({ keys: result.needsRestart }, "config keys outside policy changed; they apply after a restart");
      logger.info({ dryRun: result.policy.dry_run }, "policy reloaded");
    },
    drain: () => drain.start(),
    details: () => ({
      venue: o.venue.simulated ? "simulator" : "live",
      trading_state: trading.state,
      ...(trading.reason !== undefined ? { trading_state_reason: trading.reason } : {}),
      unexplained_positions: positions.known ? scope.claimed.unexplainedPositions() : [],
    }),
  };
}
