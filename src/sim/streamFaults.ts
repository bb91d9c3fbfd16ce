/**
 * Faults of the simulated venue's streams, driven by tests and benches to prove the daemon's stream
 * client survives what a real venue does: dropped sockets, refused reconnects, silent (stalled)
 * sockets, garbage frames and refused auth. Flags apply to sockets opened later too.
 */
import type { StreamConnection } from "./streamConnection.js";
import { MALFORMED_KINDS, type MalformedKind, malformedFrames } from "./streamMalformed.js";
import type { StreamScope } from "./streamProtocol.js";

/** What the faults act on: the live sockets of the owning `SimStreams`. */
export interface StreamFaultTarget {
  connections(scope?: StreamScope): StreamConnection[];
  /** Server time in integer ms. */
  now(): number;
}

export interface StreamFaultState {
  refusing: { public: boolean; private: boolean };
  stalled: { public: boolean; private: boolean };
  failingAuth: boolean;
}

const SCOPES: readonly StreamScope[] = ["public", "private"];
const MAX_MALFORMED_PER_CALL = 10_000;

function scopes(scope: StreamScope | "both" | undefined): readonly StreamScope[] {
  if (scope === undefined || scope === "both") return SCOPES;
  if (scope !== "public" && scope !== "private") throw new RangeError(`unknown stream scope ${String(scope)}`);
  return [scope];
}

export class StreamFaults {
  readonly #target: StreamFaultTarget;
  readonly #refusing = { public: false, private: false };
  readonly #stalled = { public: false, private: false };
  #failingAuth = false;
  /** Topics whose pushes are lost (published, never written to a socket). */
  readonly #droppedTopics = new Set<string>();
  /** Topics whose pushes reach the sockets this many ms late (later pushes of other topics overtake them). */
  readonly #delayedTopics = new Map<string, number>();

  constructor(target: StreamFaultTarget) {
    this.#target = target;
  }

  /**
   * Cut every socket of a scope (both when omitted). `terminate` (default) destroys the TCP socket
   * with no close frame, like a network drop (client sees 1006); `close` sends close code 1012
   * "service restart". New connections are still accepted. Returns the number of sockets cut.
   */
  dropAll(scope?: StreamScope, how: "terminate" | "close" = "terminate"): number {
    const conns = scopes(scope).flatMap((s) => this.#target.connections(s));
    for (const conn of conns) {
      if (how === "close") conn.close(1012, "service restart");
      else conn.terminate();
    }
    return conns.length;
  }

  /** While on, WebSocket upgrades of the scope (both when omitted) are answered HTTP 503. */
  refuseConnections(on: boolean, scope?: StreamScope): void {
    for (const s of scopes(scope)) this.#refusing[s] = on;
  }

  /**
   * While on, sockets of the scope stay open but the server sends nothing (no pings, no answers, no
   * data; pushes published meanwhile are lost for them) and ignores inbound frames. The server's
   * dead-client check is suspended for the scope and its clock restarts when the stall ends.
   */
  stall(scope: StreamScope | "both", on: boolean): void {
    for (const s of scopes(scope)) {
      const was = this.#stalled[s];
      this.#stalled[s] = on;
      if (was && !on) for (const conn of this.#target.connections(s)) conn.touch();
    }
  }

  /**
   * Send `n` bad frames to every open socket of the scope (both when omitted), authenticated or not.
   * `kind` undefined cycles through all kinds but `oversized` (see streamMalformed.ts). Stalled scopes
   * get nothing. Returns the number of frames written.
   */
  sendMalformed(n: number, scope?: StreamScope, kind?: MalformedKind): number {
    if (!Number.isInteger(n) || n < 0 || n > MAX_MALFORMED_PER_CALL) {
      throw new RangeError(`sendMalformed: n must be an integer in [0, ${MAX_MALFORMED_PER_CALL}]`);
    }
    if (kind !== undefined && !MALFORMED_KINDS.includes(kind)) throw new RangeError(`unknown malformed kind ${String(kind)}`);
    let written = 0;
    for (const s of scopes(scope)) {
      const conns = this.#target.connections(s);
      if (conns.length === 0 || n === 0) continue;
      // Built once per scope; each frame converted to bytes once for all sockets.
      const frames = malformedFrames(n, s, kind, this.#target.now()).map((f) => Buffer.from(f, "utf8"));
      for (const conn of conns) {
        for (const frame of frames) if (conn.send(frame)) written++;
      }
    }
    return written;
  }

  /** While on, every private auth is answered `success:false` (and the socket closed). */
  failAuth(on: boolean): void {
    this.#failingAuth = on;
  }

  /**
   * While on, pushes of `topic` are lost: a private push that never arrives (the answer's fallback
   * missing too), or a public one. Sockets stay up; other topics flow.
   */
  dropTopic(topic: string, on: boolean): void {
    if (on) this.#droppedTopics.add(topic);
    else this.#droppedTopics.delete(topic);
  }

  /**
   * Pushes of `topic` reach the sockets `ms` later than published (0: at once), with the venue time
   * of their publication: a report that overtakes another (a position push before the fill's
   * execution report), as a venue's separate topic pipelines can deliver them.
   */
  delayTopic(topic: string, ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError("delayTopic: ms must be a finite number >= 0");
    if (ms === 0) this.#delayedTopics.delete(topic);
    else this.#delayedTopics.set(topic, ms);
  }

  /** How a push of `topic` is delivered now: dropped, delayed by ms, or at once (0). */
  topicFate(topic: string): "drop" | number {
    if (this.#droppedTopics.has(topic)) return "drop";
    return this.#delayedTopics.get(topic) ?? 0;
  }

  /** Turn every fault off. */
  reset(): void {
    this.refuseConnections(false);
    this.stall("both", false);
    this.failAuth(false);
    this.#droppedTopics.clear();
    this.#delayedTopics.clear();
  }

  isRefusing(scope: StreamScope): boolean {
    return this.#refusing[scope];
  }

  isStalled(scope: StreamScope): boolean {
    return this.#stalled[scope];
  }

  get failingAuth(): boolean {
    return this.#failingAuth;
  }

  state(): StreamFaultState {
    return { refusing: { ...this.#refusing }, stalled: { ...this.#stalled }, failingAuth: this.#failingAuth };
  }
}
