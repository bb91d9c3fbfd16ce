/**
 * The live claimer: the claim desk (core/claimDesk.ts) driven by the claims limiter. Each permit takes
 * the best pending claim *when it is granted*, decided again on the latest marks, exposure and open
 * list (late binding), and the trading core (core/tradingCore.ts) sends it and owns it until it is
 * settled. A permit is only spent on a claim actually sent. At the end of a frame's offers a free
 * permit sends the best claim at once, inside the frame's handler (`sendNow`).
 *
 * One pump per limiter (core/claimQueue.ts): liquidation claims on the claims limiter, the insurance
 * fund's claims on their own endpoint's (`acquireFund`), so a fund claim never spends a permit a
 * liquidation could have used, nor the other way round.
 */
import { type ClaimDesk, MARGIN_SKIPS } from "../../core/claimDesk.js";
import type { ClaimWire } from "../../core/claimPipeline.js";
import type { ClaimLimiter } from "../../core/claimQueue.js";
import type { PauseReason } from "../../engine/pauseReasons.js";
import type { ClaimDecision } from "../../engine/policy.js";
import type { Liquidation } from "../../engine/types.js";

/** The rehearsal's effects have no text without a wire. */
const NO_WIRE: ClaimWire = { claimText: () => 0 };

export interface ClaimerOptions {
  desk: ClaimDesk;
  /** The claims limiter's permit (limiters.acquire("claims", signal)). */
  acquire: (signal: AbortSignal) => Promise<void>;
  /** A permit only if one is free now (sendNow); none: claims leave from the pump only. */
  tryAcquire?: () => boolean;
  /** The insurance fund's claims limiter (limiters.acquire("fund_claims", signal)); none: the claims limiter's. */
  acquireFund?: (signal: AbortSignal) => Promise<void>;
  /** Whether a claim would be a dry run now (the rehearsal builds its journal line the same way). */
  dryRun: () => boolean;
  /** The signed request text of a claim, never written (the rehearsal); none: rehearsals stop at the body. */
  wire?: ClaimWire;
  now?: () => number;
}

export class Claimer {
  readonly #o: ClaimerOptions & { now: () => number };
  readonly #desk: ClaimDesk;
  /** Each pump's wake-up while it waits for work. */
  readonly #wakes: Record<ClaimLimiter, (() => void) | undefined> = { claims: undefined, fund_claims: undefined };
  readonly #wakeAll = (): void => {
    this.#wakes.claims?.();
    this.#wakes.fund_claims?.();
  };
  /** The claims pump waits for work (not for a permit, not for a hold). */
  #idle = false;
  /** The last claim decision of an offer, until the synchronous run that made it ends (sendNow reuses it). */
  #fresh: { liquidation: Liquidation; d: ClaimDecision } | undefined;
  readonly #forgetFresh = (): void => {
    this.#fresh = undefined;
  };
  #loop: Promise<void> | undefined;
  readonly #stop = new AbortController();

  constructor(options: ClaimerOptions) {
    this.#o = { now: Date.now, ...options };
    this.#desk = options.desk;
  }

  /** What the desk reports goes through here (the builder wires the desk's hooks to these). */
  readonly hooks = {
    queued: (liquidation: Liquidation, d: ClaimDecision): void => {
      // A promise reaction, not queueMicrotask: Node wraps each queueMicrotask callback in an
      // AsyncResource, ~12 µs of a frame's ~70 µs of offers in the bench's profile.
      if (this.#fresh === undefined) void Promise.resolve().then(this.#forgetFresh);
      this.#fresh = { liquidation, d };
      this.#wakes.claims?.();
      // The fund's pump only when it has work (most frames queue liquidation claims only).
      if (this.#desk.queue.sizeOf("fund_claims") > 0) this.#wakes.fund_claims?.();
    },
    wake: (): void => this.#wakeAll(),
  };

  get desk(): ClaimDesk {
    return this.#desk;
  }

  get pendingCount(): number {
    return this.#desk.queue.size;
  }

  /** Claims sent whose outcome is not settled: in flight, unknown, or applied with fills unknown. */
  unsettledCount(): number {
    return this.#desk.core.unsettledClaims();
  }

  pausedReasons(): PauseReason[] {
    return this.#desk.pauses.reasons();
  }

  start(): void {
    this.#loop ??= Promise.all([
      this.#pump("claims", this.#o.acquire),
      this.#pump("fund_claims", this.#o.acquireFund ?? this.#o.acquire),
    ]).then(() => undefined);
  }

  /** A liquidation is new or changed (stream delta or REST reconcile). */
  offer(liquidation: Liquidation, receivedAt?: number): void {
    this.#desk.offer(liquidation, receivedAt);
  }

  /** The id left the open list: drop it unless the core holds it. */
  cancel(id: number): void {
    this.#desk.cancel(id);
  }

  /** Stop (or resume) all claiming for a reason; `forMs` resumes by itself. */
  setPaused(reason: PauseReason, on: boolean, forMs?: number): void {
    this.#desk.pause(reason, on, forMs);
  }

  /** Re-decide the open ids last skipped for one of `reasons` (all skips when omitted). */
  retrySkipped(reasons?: ReadonlySet<string>): void {
    this.#desk.retrySkipped(reasons);
  }

  /**
   * The account was read (a positions snapshot applied): a hold for a -1101 ends, since the model
   * now carries what the venue counts, and what margin skipped is decided again on it.
   */
  accountRead(): void {
    if (this.#desk.pauses.reasons().includes("margin")) this.#desk.pause("margin", false);
    this.#desk.retrySkipped(MARGIN_SKIPS);
  }

  /** Bounded memory over a week of running: what ids that left the open list leave behind. */
  sweep(isOpen: (id: number) => boolean): void {
    this.#desk.sweep(isOpen);
  }

  /** Dry run was switched off: ids only decided in dry run may now be claimed for real. */
  forgetDryRun(): void {
    this.#desk.forgetDryRun();
  }

  /** Stop sending, wait for claims in flight (their outcomes are journaled), clear timers. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#wakeAll();
    await this.#loop;
    await this.#desk.core.idle();
    this.#desk.pauses.clearTimers();
  }

  async #pump(limiter: ClaimLimiter, acquire: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const signal = this.#stop.signal;
    const desk = this.#desk;
    while (!signal.aborted) {
      const hold = desk.holdLeft();
      if (!desk.ready(limiter)) {
        if (limiter === "claims") this.#idle = hold <= 0;
        await new Promise<void>((resolve) => {
          this.#wakes[limiter] = resolve;
          if (hold > 0) setTimeout(resolve, hold).unref();
        });
        if (limiter === "claims") this.#idle = false;
        this.#wakes[limiter] = undefined;
        continue;
      }
      try {
        await acquire(signal);
      } catch {
        continue; // aborted or limiter stopped: the loop condition ends it
      }
      // A -1003 that came back while this permit was awaited starts a hold: sending on the permit
      // would put a claim inside the window the venue has just refused. The loop waits it out.
      if (desk.holdLeft() > 0) continue;
      if (desk.pauses.size === 0) desk.take(this.#fresh, limiter);
    }
  }

  /**
   * The claim path of `liquidation` up to the socket with the rehearsal's effects (claimPipeline.ts,
   * claimRehearsal.ts): nothing is reserved, queued, journaled, counted or sent; the desk's state is
   * untouched. Returns the bytes built (0 when the policy skips it).
   */
  rehearse(liquidation: Liquidation): number {
    return this.#desk.pipeline.rehearse(liquidation, this.#o.now(), this.#o.dryRun(), this.#o.wire ?? NO_WIRE);
  }

  /**
   * The end of a frame's offers: when the pump was idle and a permit is free now, the best pending
   * claim leaves at once, inside the frame's handler, instead of a microtask later behind whatever
   * else the handler does. The pump, woken by the offers, finds the queue as this leaves it.
   */
  sendNow(): void {
    const o = this.#o;
    if (!this.#idle || !this.#desk.ready("claims") || this.#stop.signal.aborted) return;
    if (o.tryAcquire === undefined || !o.tryAcquire()) return;
    this.#desk.take(this.#fresh);
  }
}
