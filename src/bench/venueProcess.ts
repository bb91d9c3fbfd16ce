/**
 * The bench's venue: the simulated venue (src/sim) in its own process, driven over IPC by run.ts
 * (messages in venueProtocol.ts). It measures on ONE clock, its own `performance.now()`:
 * - a liquidation's frame time: when the `liquidation` push carrying it was handed to the sockets
 *   (SimStreams write listener, called right after the write);
 * - a claim's receive time: when the last byte of the `POST /v1/liquidation` request had arrived
 *   (the request's `end`), on a front http server that serves the simulator's own REST handler and
 *   streams. The simulator's claim log stamps whole milliseconds only, too coarse for loopback
 *   latencies of a fraction of a millisecond; the front server adds µs stamps without touching src/sim.
 * Several independent simulators ("lanes") can run in the process, one per client: the latency
 * phase alternates frames between the daemon's lane and the floor's, so both are measured under the
 * same conditions at the same time (a slow minute of the host hurts both alike).
 * The process exits when the IPC channel closes (the runner died or is done).
 *
 * Longer than most files: the bench's venue process: the front server, the lanes and the IPC commands that drive them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Prng } from "../sim/prng.js";
import { QUIET_SCENARIO } from "../sim/scenario.js";
import type { StreamWrite } from "../sim/simStreams.js";
import { type SimulatorHandle, startSimulator } from "../sim/startSimulator.js";
import { roundToStep } from "../sim/symbols.js";
import type {
  CascadeClaim,
  CascadeOptions,
  CascadeReport,
  CascadeStarted,
  TickOptions,
  TickResult,
  VenueInfo,
  VenueReply,
  VenueRequest,
  VenueStartOptions,
} from "./venueProtocol.js";

const CLAIM_PATH = "/v1/liquidation";

/** One simulated venue with its front server and stamps. */
class Lane {
  readonly #sim: SimulatorHandle;
  readonly #front: Server;
  /** Liquidation id → when its first push was written (ms, performance.now). */
  readonly #emitted = new Map<number, number>();
  /** Liquidation id → when the first claim request for it had fully arrived. */
  readonly #received = new Map<number, number>();
  /** Waiters for "the answer to the claim of this id was sent". */
  readonly #answered = new Map<number, () => void>();
  readonly #fees: CascadeReport["fees"] = [];
  /** Ids of the latency frames of this lane, in order. */
  readonly #measured: number[] = [];
  /** Size of the current long/short pair of latency frames. */
  #pairQty = 0;
  /** Claim-log sequence number before the cascade: claims after it are the cascade's. */
  #cascadeFromSeq = 0;
  /** TCP connections accepted by the front server (REST and streams). */
  connections = 0;

  private constructor(sim: SimulatorHandle, front: Server) {
    this.#sim = sim;
    this.#front = front;
    sim.streams.addWriteListener((w) => this.#onWrite(w));
  }

  static async start(o: VenueStartOptions, seed: number): Promise<Lane> {
    const sim = await startSimulator({
      seed,
      // Marks are still but pushed every second (fresh for the policy); nothing happens by itself.
      // With a population: traders hold positions (and come and go) on the still marks, so the
      // platform positions the heatmap polls are a market's, and nobody is liquidated.
      scenario: {
        ...QUIET_SCENARIO,
        markIntervalMs: 1000,
        ...(o.population === true ? { market: "positions" as const, liquidationsPerSec: 0.2 } : {}),
      },
      rateLimits: { claimsPerAccount: o.claimsPerSecond },
      liquidationTtlMs: o.liquidationTtlMs,
      collateral: o.collateral,
    });
    let venue: Lane | undefined;
    const front = createServer((req, res) => venue?.handle(req, res));
    venue = new Lane(sim, front);
    front.on("connection", () => venue.connections++);
    sim.streams.attach(front);
    await new Promise<void>((resolve, reject) => {
      front.once("error", reject);
      front.listen(0, "127.0.0.1", () => resolve());
    });
    return venue;
  }

  info(): VenueInfo {
    const port = (this.#front.address() as AddressInfo).port;
    return {
      baseUrl: `http://127.0.0.1:${port}`,
      wsUrl: `ws://127.0.0.1:${port}`,
      accountId: this.#sim.accountId,
      secret: this.#sim.secret,
      pid: process.pid,
    };
  }

  /** The simulator's REST handler, plus µs stamps of claim requests (id peeked from the body). */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.#sim.rest.handle(req, res);
    if (req.method !== "POST" || req.url !== CLAIM_PATH) return;
    // Listeners added after the handler started reading: they see the same chunks, change nothing.
    const chunks: Buffer[] = [];
    let id: number | undefined;
    req.on("data", (c: Buffer) => chunks.push(c));
    req.once("end", () => {
      const t = performance.now();
      id = peekId(chunks);
      if (id !== undefined && !this.#received.has(id)) this.#received.set(id, t);
    });
    res.once("finish", () => {
      if (id === undefined) return;
      const waiter = this.#answered.get(id);
      this.#answered.delete(id);
      waiter?.();
    });
  }

  #onWrite(w: StreamWrite): void {
    if (w.scope !== "public" || w.topic !== "liquidation") return;
    const t = performance.now();
    for (const row of w.data as { liquidationId: number; positionsByPerp: unknown[] }[]) {
      if (row.positionsByPerp.length > 0 && !this.#emitted.has(row.liquidationId)) this.#emitted.set(row.liquidationId, t);
    }
  }

  /**
   * Frame number `j` of this lane: one liquidation, one symbol. Frames come in pairs on one symbol,
   * long then short of the same size, so positions net out and margin stays free. Resolves with the
   * tick-to-claim in ms once the claim was answered, or undefined when no claim came in time.
   */
  async frame(j: number, prng: Prng, claimTimeoutMs: number): Promise<number | undefined> {
    const core = this.#sim.core;
    const specs = core.symbols.all();
    const spec = specs[(j >> 1) % specs.length]!;
    const mark = core.mark(spec.symbol) ?? spec.startPrice;
    if (j % 2 === 0) this.#pairQty = Math.max(spec.qtyStep, roundToStep(prng.logUniform(1_000, 4_000) / mark, spec.qtyStep));
    // Synchronous push: no answer can arrive before the waiter below is in place.
    const id = core.addLiquidation({ positions: [{ symbol: spec.symbol, position_qty: j % 2 === 0 ? this.#pairQty : -this.#pairQty }] });
    this.#measured.push(id);
    const answered = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), claimTimeoutMs);
      this.#answered.set(id, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    this.#answered.delete(id);
    const sent = this.#emitted.get(id);
    const got = this.#received.get(id);
    return answered && sent !== undefined && got !== undefined ? got - sent : undefined;
  }

  /** Claims the venue refused among the frames of this lane from index `from` on, by code. */
  refusals(from: number): Record<string, number> {
    const want = new Set(this.#measured.slice(from));
    const out: Record<string, number> = {};
    for (const e of this.#sim.core.claimRequests()) {
      if (e.source !== "rest" || e.liquidationId === undefined || !want.has(e.liquidationId) || e.code === 0) continue;
      out[String(e.code)] = (out[String(e.code)] ?? 0) + 1;
    }
    return out;
  }

  /** `total` liquidations in `pushes` frames evenly spread over `spanMs`, each with its expected fee. */
  async cascade(o: CascadeOptions): Promise<CascadeStarted> {
    const core = this.#sim.core;
    const names = core.symbols.names();
    for (let n = 0; n < o.warmupLiquidations; n += 1_000) {
      core.cascade(Math.min(1_000, o.warmupLiquidations - n), { symbols: names, notional: o.notional, ttlMs: 300 });
    }
    if (o.warmupLiquidations > 0) await sleep(o.warmupLeadMs);
    this.#cascadeFromSeq = core.claimLog.entries().reduce((m, e) => Math.max(m, e.seq), 0);
    const per = Math.ceil(o.total / o.pushes);
    const start = performance.now();
    let first = Number.NaN;
    let last = Number.NaN;
    let ids = 0;
    for (let k = 0; k < o.pushes && ids < o.total; k++) {
      const due = start + (k * o.spanMs) / o.pushes;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const pushedAt = performance.now();
      if (k === 0) first = pushedAt;
      last = pushedAt;
      for (const id of core.cascade(Math.min(per, o.total - ids), { symbols: names, notional: o.notional })) {
        const liq = core.book.get(id);
        let fee = 0;
        // docs/protocol.md §11: expected fee = Σ |q| × mark × liquidator_fee (marks stay still in this scenario).
        for (const p of liq?.positions ?? []) fee += Math.abs(p.positionQty) * (core.mark(p.symbol) ?? 0) * p.liquidatorFee;
        this.#fees.push({ id, fee, pushedAt });
        ids++;
      }
    }
    return { firstPushAt: first, lastPushAt: last, ids };
  }

  /** Claims received from the liquidator's account since the cascade started. */
  claimCount(): number {
    let n = 0;
    for (const e of this.#sim.core.claimRequests())
      if (e.seq > this.#cascadeFromSeq && e.source === "rest" && e.accountId === this.#sim.accountId) n++;
    return n;
  }

  cascadeReport(): CascadeReport {
    const claims: CascadeClaim[] = [];
    for (const e of this.#sim.core.claimRequests()) {
      if (e.seq <= this.#cascadeFromSeq || e.source !== "rest" || e.accountId !== this.#sim.accountId) continue;
      let value = 0;
      for (const t of e.transfers) value += Math.abs(t.positionQty) * t.markPrice * t.liquidatorFee;
      const id = e.liquidationId;
      claims.push({
        liquidationId: id,
        receivedAt: (id !== undefined ? this.#received.get(id) : undefined) ?? Number.NaN,
        code: e.code,
        value,
      });
    }
    return { fees: this.#fees, claims, connections: this.connections };
  }

  async stop(): Promise<void> {
    await this.#sim.close();
    await new Promise<void>((resolve) => {
      this.#front.close(() => resolve());
      this.#front.closeAllConnections();
    });
  }
}

function peekId(chunks: Buffer[]): number | undefined {
  try {
    const v = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { liquidation_id?: unknown }).liquidation_id;
    return typeof v === "number" && Number.isSafeInteger(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Frames alternate between the lanes (the first lane rotates); each lane's first `warmup` frames are not counted. */
async function tick(lanes: readonly Lane[], o: TickOptions): Promise<TickResult[]> {
  const prng = new Prng(o.seed);
  const results = lanes.map(() => ({ samplesMs: [] as number[], missed: 0 }));
  const connectionsBefore = lanes.map((l) => l.connections);
  const started = performance.now();
  for (let j = 0; j < o.warmup + o.count; j++) {
    for (let k = 0; k < lanes.length; k++) {
      // The lane that goes first alternates: neither client always follows the other's claim.
      const l = (k + j) % lanes.length;
      const ms = await lanes[l]!.frame(j, prng, o.claimTimeoutMs);
      if (j >= o.warmup) {
        if (ms === undefined) results[l]!.missed++;
        else results[l]!.samplesMs.push(ms);
      }
      await sleep(o.gapMs + prng.uniform(0, o.gapJitterMs));
    }
  }
  const elapsedMs = performance.now() - started;
  return results.map((r, l) => ({
    ...r,
    refusedByCode: lanes[l]!.refusals(o.warmup),
    elapsedMs,
    connectionsOpened: lanes[l]!.connections - (connectionsBefore[l] as number),
  }));
}

async function serve(): Promise<void> {
  if (process.send === undefined) throw new Error("venueProcess must be started with an IPC channel (child_process.fork)");
  let lanes: Lane[] = [];
  const reply = (r: VenueReply): void => void process.send?.(r);
  const first = (): Lane => {
    if (lanes[0] === undefined) throw new Error("venue not started");
    return lanes[0];
  };
  const stopAll = async (): Promise<void> => {
    const all = lanes;
    lanes = [];
    await Promise.all(all.map((l) => l.stop()));
  };
  process.on("message", (msg: VenueRequest) => {
    const run = async (): Promise<unknown> => {
      switch (msg.cmd) {
        case "start":
          if (lanes.length > 0) throw new Error("venue already started");
          for (let l = 0; l < Math.max(1, msg.options.lanes); l++) lanes.push(await Lane.start(msg.options, msg.options.seed + l));
          return lanes.map((l) => l.info());
        case "tick":
          return tick(lanes, msg.options);
        case "cascade":
          return first().cascade(msg.options);
        case "claimCount":
          return first().claimCount();
        case "cascadeReport":
          return first().cascadeReport();
        case "stop":
          await stopAll();
          setImmediate(() => process.disconnect());
          return true;
      }
    };
    run().then(
      (result) => reply({ id: msg.id, ok: true, result }),
      (err: unknown) => reply({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The runner is gone (done, crashed or killed): leave, whatever is running.
  process.on("disconnect", () => {
    void stopAll().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2_000).unref();
  });
}

await serve();
