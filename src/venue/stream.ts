/**
 * One resilient venue stream connection (docs/protocol.md §5): connect, authenticate (private), subscribe,
 * heartbeat both ways, declare the socket dead after `deadAfterMs` of silence, and reconnect with
 * full-jitter exponential backoff, re-authenticating and re-subscribing every time. Every frame is
 * validated (wire.ts); a bad one is counted, logged once per reason per connection (badFrames.ts), and dropped.
 *
 * Hot path: one JSON.parse per frame, a Map lookup and a switch on the topic kind, a hand-written
 * validator, the callback. Socket handlers are bound once per connection, never per frame.
 *
 * Longer than most files: the socket's lifecycle is one state machine (connect, auth, subscribe, heartbeat, dead check, reconnect); frame decoding, the handshake and the reconnect policy are already apart.
 */

import type { RawData } from "ws";
import WebSocket from "ws";
import { InvalidArgumentError } from "../errors.js";
import { sleep } from "../sleep.js";
import { BadFrames } from "./badFrames.js";
import { decodeFrame } from "./frameDecoder.js";
import { type ConnectionEnd, ReconnectPolicy } from "./reconnectPolicy.js";
import type { Signer } from "./signer.js";
import { type HandshakeStep, StreamHandshake, shortText } from "./streamHandshake.js";
import {
  DEFAULTS,
  type FailureReason,
  noopLogger,
  type StreamClientOptions,
  type StreamKind,
  type StreamLogger,
  type StreamState,
  type StreamStatus,
  validateStreamOptions,
} from "./streamOptions.js";
import { USER_AGENT } from "./userAgent.js";

import type { StreamData, TopicRoute } from "./wire.js";

export type { FailureReason, StreamClientOptions, StreamKind, StreamLogger, StreamState };

/** ws error codes raised by the receiver for a frame over `maxPayload` (closed with 1009). */
const OVERSIZED_CODES = new Set(["WS_ERR_UNSUPPORTED_MESSAGE_LENGTH", "WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH"]);

export class StreamClient {
  readonly url: string;
  readonly stream: StreamKind;
  readonly topics: readonly string[];
  readonly #signer: Pick<Signer, "wsAuthParams"> | undefined;
  readonly #routes: Map<string, TopicRoute>;
  readonly #pingIntervalMs: number;
  readonly #deadAfterMs: number;
  readonly #setupTimeoutMs: number;
  readonly #maxFrameBytes: number;
  readonly #reconnect: ReconnectPolicy;
  readonly #restHealthy: () => boolean;
  readonly #onData: (data: StreamData) => void;
  readonly #onStateChange: ((state: StreamState) => void) | undefined;
  readonly #onReconnect: (() => void) | undefined;
  readonly #log: StreamLogger;
  readonly #now: () => number;

  #started = false;
  #state: StreamState = "stopped";
  #reconnects = 0;
  #lastFailure: FailureReason | undefined;
  #consecutiveFailures = 0;
  /** How the last connection ended, for the reconnect policy. */
  #lastEnd: ConnectionEnd = "failed";

  // Per-connection state, reset by #connectOnce.
  #ws: WebSocket | undefined;
  #connSeq = 0;
  #connectedAt: number | undefined;
  #readyAt: number | undefined;
  #lastFrameAt: number | undefined;
  #failure: FailureReason | undefined;
  /** Set once the connection is being torn down: ws may still hand over frames it had buffered. */
  #closing = false;
  #handshake: StreamHandshake | undefined;
  readonly #dropped: BadFrames;
  #pingTimer: NodeJS.Timeout | undefined;
  #deadTimer: NodeJS.Timeout | undefined;
  #closeGuard: NodeJS.Timeout | undefined;

  constructor(options: StreamClientOptions) {
    const o = validateStreamOptions(options);
    this.url = o.url;
    this.stream = o.stream;
    this.topics = o.topics;
    this.#routes = o.routes;
    this.#signer = o.signer;
    this.#pingIntervalMs = o.pingIntervalMs;
    this.#deadAfterMs = o.deadAfterMs;
    this.#setupTimeoutMs = o.setupTimeoutMs;
    this.#maxFrameBytes = o.maxFrameBytes;
    this.#reconnect = new ReconnectPolicy({ ...o.backoff, ...(o.random !== undefined ? { random: o.random } : {}) });
    this.#restHealthy = o.restHealthy;
    this.#onData = options.onData;
    this.#onStateChange = options.onStateChange;
    this.#onReconnect = options.onReconnect;
    this.#log = options.logger ?? noopLogger;
    this.#dropped = new BadFrames(o.stream, this.#log, options.onBadMessage);
    this.#now = o.now;
  }

  get state(): StreamState {
    return this.#state;
  }
  isReady(): boolean {
    return this.#state === "ready";
  }
  /** Times a connection ended (or failed to open) and another one was scheduled. */
  get reconnects(): number {
    return this.#reconnects;
  }
  /** Frames counted bad (one per frame, whatever the reason). */
  get badMessages(): number {
    return this.#dropped.messages;
  }
  /** Why the last connection ended; stays set until the next failure (a readiness reason). */
  get lastFailure(): FailureReason | undefined {
    return this.#lastFailure;
  }

  /** Everything readiness needs, as one plain object (safe to log or serialise). */
  status(): StreamStatus {
    return {
      stream: this.stream,
      state: this.#state,
      connectedAt: this.#connectedAt,
      readyAt: this.#readyAt,
      lastFrameAt: this.#lastFrameAt,
      reconnects: this.#reconnects,
      badMessages: this.#dropped.messages,
      droppedEntries: this.#dropped.entries,
      lastFailure: this.#lastFailure,
      consecutiveFailures: this.#consecutiveFailures,
    };
  }

  /** Run until `signal` aborts; then close the socket, stop every timer and resolve. Never rejects after start. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new InvalidArgumentError("StreamClient.start may be called once");
    this.#started = true;
    try {
      while (!signal.aborted) {
        await this.#connectOnce(signal);
        if (signal.aborted) break;
        this.#reconnects++;
        this.#safeCall(this.#onReconnect);
        const { delayMs, ceilingMs } = this.#reconnect.next(this.#lastEnd, this.#restHealthy());
        this.#setState("backoff");
        this.#log.info(
          { stream: this.stream, reason: this.#lastFailure, delayMs, ceilingMs, failures: this.#consecutiveFailures },
          "stream reconnect scheduled",
        );
        await sleep(delayMs, signal);
      }
    } finally {
      this.#clearTimers();
      this.#setState("stopped");
    }
  }

  #connectOnce(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#connSeq++;
      this.#connectedAt = undefined;
      this.#readyAt = undefined;
      this.#lastFrameAt = undefined;
      this.#failure = undefined;
      this.#closing = false;
      this.#handshake = new StreamHandshake(this.#connSeq, this.topics, this.#signer);
      this.#dropped.newConnection();
      this.#setState("connecting");
      let ws: WebSocket;
      try {
        // perMessageDeflate off: inflating every frame costs latency on the hot path and zlib memory.
        ws = new WebSocket(this.url, {
          maxPayload: this.#maxFrameBytes,
          handshakeTimeout: this.#deadAfterMs,
          perMessageDeflate: false,
          headers: { "user-agent": USER_AGENT },
        });
      } catch (err) {
        this.#failure = "connect_error";
        this.#log.warn({ stream: this.stream, err: shortText((err as Error)?.message) }, "stream connect failed");
        this.#afterClose(undefined);
        resolve();
        return;
      }
      this.#ws = ws;
      const onAbort = (): void => this.#shutdown(ws);
      signal.addEventListener("abort", onAbort, { once: true });
      ws.on("open", () => this.#onOpen(ws));
      ws.on("message", (data: RawData, isBinary: boolean) => this.#onMessage(ws, data, isBinary));
      ws.on("error", (err: Error) => this.#onError(ws, err));
      ws.on("close", (code: number) => {
        signal.removeEventListener("abort", onAbort);
        if (ws === this.#ws) this.#afterClose(code, signal.aborted);
        resolve();
      });
    });
  }

  #onOpen(ws: WebSocket): void {
    if (ws !== this.#ws) return;
    try {
      const t = this.#now();
      this.#connectedAt = t;
      this.#lastFrameAt = t;
      this.#pingTimer = setInterval(this.#sendPing, this.#pingIntervalMs);
      this.#deadTimer = setTimeout(this.#checkAlive, this.#deadAfterMs);
      this.#step(this.#handshake?.open() ?? { kind: "none" });
    } catch (err) {
      this.#fail("socket_error", err);
    }
  }

  #onMessage(ws: WebSocket, raw: RawData, isBinary: boolean): void {
    // A dying connection must not act on frames parsed after the decision (e.g. a success ack that
    // followed a refused one in the same TCP read would otherwise flip it to ready).
    if (ws !== this.#ws || this.#closing) return;
    this.#lastFrameAt = this.#now();
    try {
      this.#handleFrame(raw, isBinary);
    } catch (err) {
      // Only a consumer callback can get here (validators do not throw): log it, keep the socket.
      this.#dropped.logOnce("callback_error", "error", { err: shortText((err as Error)?.message) }, "stream data callback threw");
    }
  }

  #handleFrame(raw: RawData, isBinary: boolean): void {
    const d = decodeFrame(raw as Buffer, isBinary, this.#routes);
    switch (d.kind) {
      case "data":
        if (d.dropped > 0) this.#dropped.entriesDropped(d.dropped);
        return this.#onData(d.data);
      case "event":
        return this.#step(this.#handshake?.onEvent(d.event, d.frame, this.#now()) ?? { kind: "none" });
      case "empty":
        return this.#dropped.entriesDropped(d.dropped);
      case "bad":
        return this.#dropped.frame(d.reason);
    }
  }

  /** Act on what the handshake says: send, become ready, end the connection, or count a bad frame. */
  #step(step: HandshakeStep): void {
    switch (step.kind) {
      case "send":
        if (step.state !== undefined) this.#setState(step.state);
        for (const frame of step.frames) this.#send(frame);
        return;
      case "ready":
        this.#readyAt = this.#now();
        this.#consecutiveFailures = 0;
        this.#reconnect.onReady();
        this.#setState("ready");
        this.#log.info({ stream: this.stream, topics: this.topics }, "stream ready");
        return;
      case "refused":
        this.#log.warn(
          { stream: this.stream, ...(step.topic !== undefined ? { topic: step.topic } : {}), errorMsg: step.errorMsg },
          step.reason === "auth_failed" ? "stream auth refused" : "stream subscribe refused",
        );
        return this.#fail(step.reason);
      case "bad":
        return this.#dropped.frame(step.reason);
      case "none":
        return;
    }
  }

  #onError(ws: WebSocket, err: Error): void {
    if (ws !== this.#ws || this.#closing) return; // errors of a socket we are tearing down are expected
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && OVERSIZED_CODES.has(code)) {
      this.#dropped.frame("oversized");
      this.#failure ??= "oversized";
    } else if (typeof code === "string" && code.startsWith("WS_ERR_")) {
      this.#dropped.frame("protocol_error");
      this.#failure ??= "protocol_error";
    } else {
      this.#failure ??= this.#connectedAt === undefined ? "connect_error" : "socket_error";
      this.#dropped.logOnce("socket_error", "warn", { err: shortText(err.message) }, "stream socket error");
    }
    // ws follows every error with 'close'; the reconnect happens there.
    this.#closing = true;
  }

  /** Watchdog: a socket silent for deadAfterMs, or not ready setupTimeoutMs after opening, is dead. */
  readonly #checkAlive = (): void => {
    this.#deadTimer = undefined;
    const ws = this.#ws;
    if (ws === undefined || this.#connectedAt === undefined) return;
    const t = this.#now();
    const silentMs = t - (this.#lastFrameAt ?? this.#connectedAt);
    const setupMs = t - this.#connectedAt;
    if (silentMs >= this.#deadAfterMs) {
      this.#log.warn({ stream: this.stream, silentMs }, "stream silent, replacing the connection");
      return this.#fail("stalled");
    }
    if (this.#state !== "ready" && setupMs >= this.#setupTimeoutMs) {
      this.#log.warn({ stream: this.stream, state: this.#state, setupMs }, "stream setup timed out");
      return this.#fail("setup_timeout");
    }
    let nextMs = this.#deadAfterMs - silentMs;
    if (this.#state !== "ready") nextMs = Math.min(nextMs, this.#setupTimeoutMs - setupMs);
    this.#deadTimer = setTimeout(this.#checkAlive, Math.max(1, nextMs));
  };

  readonly #sendPing = (): void => {
    this.#send({ event: "ping", ts: this.#now() });
  };

  #send(frame: object): void {
    const ws = this.#ws;
    if (ws === undefined || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(frame), (err) => {
      if (err !== undefined && err !== null) {
        this.#dropped.logOnce("send_error", "warn", { err: shortText(err.message) }, "stream send failed");
      }
    });
  }

  /** End the current connection for `reason`; the reconnect loop takes over when 'close' fires. */
  #fail(reason: FailureReason, err?: unknown): void {
    this.#failure ??= reason;
    this.#closing = true;
    if (err !== undefined) {
      this.#log.error({ stream: this.stream, reason, err: shortText((err as Error)?.message) }, "stream connection failed");
    }
    this.#clearTimers();
    this.#ws?.terminate();
  }

  /** Abort: a polite close, with a short guard in case the peer never answers the close frame. */
  #shutdown(ws: WebSocket): void {
    this.#closing = true;
    this.#clearTimers();
    if (ws.readyState === WebSocket.OPEN) {
      ws.close(1000, "shutdown");
      this.#closeGuard = setTimeout(() => ws.terminate(), DEFAULTS.closeGuardMs);
    } else {
      ws.terminate();
    }
  }

  #afterClose(code: number | undefined, aborted = false): void {
    this.#clearTimers();
    if (this.#closeGuard !== undefined) {
      clearTimeout(this.#closeGuard);
      this.#closeGuard = undefined;
    }
    const t = this.#now();
    const wasReady = this.#readyAt !== undefined;
    this.#lastEnd = this.#reconnect.classify(wasReady ? t - this.#readyAt! : undefined, this.#failure === "auth_failed");
    this.#ws = undefined;
    this.#connectedAt = undefined;
    this.#readyAt = undefined;
    this.#handshake = undefined;
    if (aborted) return;
    // Not ready from the instant the socket is gone (the loop schedules the retry a tick later).
    this.#setState("backoff");
    const reason = this.#failure ?? (this.#lastFrameAt === undefined ? "connect_error" : "closed");
    this.#lastFailure = reason;
    this.#consecutiveFailures = wasReady ? 1 : this.#consecutiveFailures + 1;
    this.#log.warn({ stream: this.stream, reason, code, failures: this.#consecutiveFailures }, "stream connection lost");
  }

  #clearTimers(): void {
    if (this.#pingTimer !== undefined) clearInterval(this.#pingTimer);
    if (this.#deadTimer !== undefined) clearTimeout(this.#deadTimer);
    this.#pingTimer = undefined;
    this.#deadTimer = undefined;
  }

  #setState(state: StreamState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#safeCall(this.#onStateChange, state);
  }

  #safeCall<A extends unknown[]>(fn: ((...args: A) => void) | undefined, ...args: A): void {
    if (fn === undefined) return;
    try {
      fn(...args);
    } catch (err) {
      this.#dropped.logOnce("callback_error", "error", { err: shortText((err as Error)?.message) }, "stream callback threw");
    }
  }
}
