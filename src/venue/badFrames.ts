/**
 * What a stream connection drops, counted and told (stream.ts): a bad frame counts once as a bad
 * message (its dropped rows are tallied apart), the caller's callback is told, and each reason is
 * logged at most once per connection — 1,000 bad frames must not become 1,000 log lines.
 */
import { shortText } from "./streamHandshake.js";
import type { StreamKind, StreamLogger } from "./streamOptions.js";
import type { BadMessageReason } from "./wire.js";

export class BadFrames {
  #messages = 0;
  #entries = 0;
  readonly #logged = new Set<string>();
  readonly #stream: StreamKind;
  readonly #log: StreamLogger;
  readonly #onBadMessage: ((reason: BadMessageReason) => void) | undefined;

  constructor(stream: StreamKind, log: StreamLogger, onBadMessage: ((reason: BadMessageReason) => void) | undefined) {
    this.#stream = stream;
    this.#log = log;
    this.#onBadMessage = onBadMessage;
  }

  get messages(): number {
    return this.#messages;
  }

  get entries(): number {
    return this.#entries;
  }

  /** A new connection logs each reason once again. */
  newConnection(): void {
    this.#logged.clear();
  }

  /** A frame with `dropped` bad rows counts once (it is one bad message); the rows are tallied apart. */
  entriesDropped(dropped: number): void {
    this.#entries += dropped;
    this.frame("bad_entry");
  }

  frame(reason: BadMessageReason): void {
    this.#messages++;
    try {
      this.#onBadMessage?.(reason);
    } catch (err) {
      this.logOnce("callback_error", "error", { err: shortText((err as Error)?.message) }, "stream callback threw");
    }
    this.logOnce(reason, "warn", undefined, "stream frame dropped");
  }

  /** Log at most once per key per connection. */
  logOnce(key: string, level: "warn" | "error", extra: object | undefined, msg: string): void {
    if (this.#logged.has(key)) return;
    this.#logged.add(key);
    this.#log[level]({ stream: this.#stream, reason: key, ...extra }, msg);
  }
}
