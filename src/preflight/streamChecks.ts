/**
 * The stream checks, on the daemon's own stream client: `public_stream` (connect, subscribe, the
 * first `markprices`) and `private_stream` (auth, subscribe). A refused auth is tried again with
 * the other encodings the official clients use for `sign` (docs/protocol.md §9): padded base64url,
 * then standard base64; which one worked is reported.
 */
import type { Signer } from "../venue/signer.js";
import { StreamClient } from "../venue/stream.js";
import type { FailureReason } from "../venue/streamOptions.js";
import { type Check, elapsedMs, fail, hostPort, type PreflightContext, pass, secretVar } from "./check.js";

/** Failures where the venue's host was not reached (no connection, or none completed in time). */
const unreached = (reason: string): boolean => reason === "connect_error" || reason === "setup_timeout" || reason === "timeout";

type Outcome = { ok: true; ms: number } | { ok: false; reason: FailureReason | "timeout" };

/** One connection until `done` (first data or ready), its first failure, or the timeout. */
function tryStream(
  ctx: PreflightContext,
  o: { url: string; stream: "public" | "private"; topics: string[]; signer?: Pick<Signer, "wsAuthParams">; untilData: boolean },
): Promise<Outcome> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const started = performance.now();
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop.abort();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ ok: false, reason: "timeout" }), ctx.streamTimeoutMs);
    const client: StreamClient = new StreamClient({
      url: o.url,
      stream: o.stream,
      topics: o.topics,
      ...(o.signer !== undefined ? { signer: o.signer } : {}),
      onData: (data) => {
        if (o.untilData && data[0] === "markprices") settle({ ok: true, ms: elapsedMs(started) });
      },
      onStateChange: (state) => {
        if (state === "ready" && !o.untilData) settle({ ok: true, ms: elapsedMs(started) });
        // The client records why the connection ended right after announcing `backoff`.
        if (state === "backoff") queueMicrotask(() => settle({ ok: false, reason: client.lastFailure ?? "closed" }));
      },
    });
    void client.start(stop.signal).finally(() => ctx.signal.removeEventListener("abort", onAbort));
  });
}

export const publicStreamCheck: Check = async (ctx) => {
  const url = `${ctx.venue.wsUrl}/ws/stream/${ctx.venue.accountId}`;
  const r = await tryStream(ctx, { url, stream: "public", topics: ["liquidation", "markprices"], untilData: true });
  ctx.observed.public_stream = r.ok ? { first_markprices_ms: r.ms } : { failure: r.reason };
  if (r.ok) return pass(`connected, subscribed to liquidation and markprices, first markprices after ${r.ms} ms`);
  return fail(
    `${url}: ${r.reason}${unreached(r.reason) ? ` (cannot reach ${hostPort(url)})` : ""}`,
    "check venue.ws_url (or LIQUIDATOR_WS_URL) and that wss:// is reachable from here",
  );
};

type Encoding = "base64url" | "base64url_padded" | "base64";

/** The signer's auth params with `sign` re-encoded; the daemon itself sends unpadded base64url. */
function encoded(signer: Signer, encoding: Encoding): Pick<Signer, "wsAuthParams"> {
  return {
    wsAuthParams: (ts?: number) => {
      const p = signer.wsAuthParams(ts);
      const bytes = Buffer.from(p.sign, "base64url");
      const sign = encoding === "base64" ? bytes.toString("base64") : encoding === "base64url_padded" ? `${p.sign}==` : p.sign;
      return { ...p, sign };
    },
  };
}

export const privateStreamCheck: Check = async (ctx) => {
  const url = `${ctx.venue.wsPrivateUrl}/v2/ws/private/stream/${ctx.venue.accountId}`;
  const topics = ["liquidatorliquidations", "position", "executionreport"];
  const refused: Encoding[] = [];
  for (const encoding of ["base64url", "base64url_padded", "base64"] as const) {
    const r = await tryStream(ctx, { url, stream: "private", topics, signer: encoded(ctx.signer, encoding), untilData: false });
    if (r.ok) {
      ctx.observed.private_stream = { auth_encoding: encoding, refused_encodings: refused, ready_ms: r.ms };
      if (refused.length === 0) return pass(`authenticated (sign as base64url, the daemon's encoding) and subscribed in ${r.ms} ms`);
      return fail(
        `the venue refused the daemon's base64url sign and accepted ${encoding}`,
        "the daemon's stream auth will fail: attach --json to a bug report",
      );
    }
    if (r.reason !== "auth_failed") {
      ctx.observed.private_stream = { failure: r.reason, refused_encodings: refused };
      return fail(
        `${url}: ${r.reason}${unreached(r.reason) ? ` (cannot reach ${hostPort(url)})` : ""}`,
        "check venue.ws_private_url (or LIQUIDATOR_WS_PRIVATE_URL) and that it is reachable from here",
      );
    }
    refused.push(encoding);
  }
  ctx.observed.private_stream = { failure: "auth_failed", refused_encodings: refused };
  return fail(
    "auth refused with every signature encoding (base64url, padded base64url, base64)",
    `the key is not registered for venue.account_id, expired, limited to other IP addresses, or the secret is wrong: check ${secretVar(ctx)} and the account id`,
  );
};
