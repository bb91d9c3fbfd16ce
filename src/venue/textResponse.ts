/** The undici dispatch handler of every venue request (httpTransport.ts, claimLanes.ts). */
import type { Dispatcher } from "undici";

/**
 * undici dispatch handler that keeps the whole answer as one string. It settles exactly once: on the
 * end of the body, on an error, or on `abort()` (deadline, caller abort) — even before undici handed
 * it a controller (the request was still queued for a socket).
 */
export class TextResponse implements Dispatcher.DispatchHandler {
  settled = false;
  #status = 0;
  readonly #chunks: Buffer[] = [];
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  readonly #done: (err: unknown, status: number, text: string) => void;
  readonly #started: (() => void) | undefined;

  /** `started`: undici is about to write the request (it calls onRequestStart just before, on a socket). */
  constructor(done: (err: unknown, status: number, text: string) => void, started?: () => void) {
    this.#done = done;
    this.#started = started;
  }

  abort(reason: Error): void {
    if (this.settled || this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    // undici answers an abort with onResponseError(reason); without a controller yet, settle here.
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.#settle(reason, 0, "");
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason !== undefined) return controller.abort(this.#abortReason);
    this.#started?.();
  }

  /** The answer's `Keep-Alive` header (the server's idle-timeout hint), when it sent one. */
  keepAlive: string | undefined;

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = statusCode; // a 1xx is followed by the final status
    const ka = headers["keep-alive"];
    this.keepAlive = Array.isArray(ka) ? ka[0] : ka;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    const c = this.#chunks;
    this.#settle(undefined, this.#status, c.length === 1 ? (c[0] as Buffer).toString("utf8") : Buffer.concat(c).toString("utf8"));
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.#settle(err, 0, "");
  }

  #settle(err: unknown, status: number, text: string): void {
    if (this.settled) return;
    this.settled = true;
    this.#done(err, status, text);
  }
}
