/**
 * The control conversation of one stream connection (docs/protocol.md §5): the private auth
 * frame, one subscribe per topic, their acks, and answering the server's pings. Pure: it says what to
 * send and what happened; the connection (stream.ts) owns the socket, the timers and the state.
 */
import type { Signer } from "./signer.js";
import type { BadMessageReason } from "./wire.js";

const MAX_LOGGED_TEXT = 200;

export type HandshakeStep =
  /** Frames to send; `state` when the handshake moves on (auth sent, subscribes sent). */
  | { kind: "send"; frames: object[]; state?: "authenticating" | "subscribing" }
  /** Every topic acknowledged: the connection is ready. */
  | { kind: "ready" }
  /** The venue refused the auth or a subscription: the connection must end. */
  | { kind: "refused"; reason: "auth_failed" | "subscribe_failed"; topic: string | undefined; errorMsg: string | undefined }
  | { kind: "bad"; reason: BadMessageReason }
  /** Nothing to do (a pong, an ack still waiting for others). */
  | { kind: "none" };

export class StreamHandshake {
  readonly #topics: readonly string[];
  readonly #signer: Pick<Signer, "wsAuthParams"> | undefined;
  readonly #seq: number;
  #authId: string | undefined;
  readonly #pendingSubs = new Map<string, string>();
  #subscribing = false;

  /** `seq` numbers the connection, so an ack of an earlier connection's request is never taken for ours. */
  constructor(seq: number, topics: readonly string[], signer: Pick<Signer, "wsAuthParams"> | undefined) {
    this.#seq = seq;
    this.#topics = topics;
    this.#signer = signer;
  }

  /** The first frames once the socket is open: the auth (private) or the subscribes (public). */
  open(): HandshakeStep {
    if (this.#signer === undefined) return this.#subscribeAll();
    this.#authId = `auth-${this.#seq}`;
    return { kind: "send", frames: [{ id: this.#authId, event: "auth", params: this.#signer.wsAuthParams() }], state: "authenticating" };
  }

  /** A control frame (`event` set) from the server; `now` answers a ping without a usable ts. */
  onEvent(event: string, f: Record<string, unknown>, now: number): HandshakeStep {
    switch (event) {
      case "ping": {
        // Echo the server's ts when it is a sane number, else our own clock.
        const ts = typeof f.ts === "number" && Number.isFinite(f.ts) ? f.ts : now;
        return { kind: "send", frames: [{ event: "pong", ts }] };
      }
      case "pong":
        return { kind: "none" }; // liveness only
      case "auth":
        return this.#onAuthAck(f);
      case "subscribe":
        return this.#onSubscribeAck(f);
      case "unsubscribe":
        return { kind: "bad", reason: "unexpected_ack" }; // this client never unsubscribes
      default:
        return { kind: "bad", reason: "unknown_event" };
    }
  }

  #subscribeAll(): HandshakeStep {
    this.#subscribing = true;
    const frames: object[] = [];
    for (let i = 0; i < this.#topics.length; i++) {
      const topic = this.#topics[i] as string;
      const id = `sub-${this.#seq}-${i}`;
      this.#pendingSubs.set(id, topic);
      frames.push({ id, event: "subscribe", topic });
    }
    return { kind: "send", frames, state: "subscribing" };
  }

  #onAuthAck(f: Record<string, unknown>): HandshakeStep {
    if (this.#authId === undefined || f.id !== this.#authId) return { kind: "bad", reason: "unexpected_ack" };
    this.#authId = undefined;
    if (f.success !== true) return { kind: "refused", reason: "auth_failed", topic: undefined, errorMsg: shortText(f.errorMsg) };
    return this.#subscribeAll();
  }

  #onSubscribeAck(f: Record<string, unknown>): HandshakeStep {
    const id = f.id;
    const topic = typeof id === "string" ? this.#pendingSubs.get(id) : undefined;
    if (topic === undefined) return { kind: "bad", reason: "unexpected_ack" };
    this.#pendingSubs.delete(id as string);
    if (f.success !== true) return { kind: "refused", reason: "subscribe_failed", topic, errorMsg: shortText(f.errorMsg) };
    return this.#pendingSubs.size === 0 && this.#subscribing ? { kind: "ready" } : { kind: "none" };
  }
}

/** Venue text bounded for a log line. */
export function shortText(v: unknown): string | undefined {
  return typeof v === "string" ? v.slice(0, MAX_LOGGED_TEXT) : undefined;
}
