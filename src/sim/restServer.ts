/**
 * The simulated venue's REST API over node:http: routing, envelopes and error bodies with the HTTP
 * status of docs/protocol.md §3, sliding-window rate limits (docs/protocol.md §4), signature checks on the
 * signed endpoints, and the REST faults. State and rules live in VenueCore and venueReads.
 *
 * Longer than most files: the simulated REST server: routing, limits per scope and the fault hooks
 * in one place, the routes themselves apart.
 */
import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { type SimFlavor, type WireFlavor, wireFlavor } from "./flavor.js";
import { InsuranceFund } from "./insuranceFund.js";
import { keyInfoRoute } from "./keyInfoRoute.js";
import { leverageRoutes } from "./leverageRoutes.js";
import { liquidatorRecordRoute } from "./liquidatorRecord.js";
import { orderRoutes } from "./orderRoutes.js";
import { PublicQuery } from "./publicQuery.js";
import { SlidingWindowLimiter } from "./rateLimiter.js";
import { type FaultAction, RestFaults } from "./restFaults.js";
import type { Handler, LimitScope, Method, RequestContext, Route } from "./restRoute.js";
import { checkSignedRequest, type Signatory } from "./signatureCheck.js";
import { supplyRoutes } from "./supplyRoutes.js";
import type { VenueCore } from "./venueCore.js";
import { adminOrdersData, campaignUserData, futuresData, infoData, liquidationList, noParams } from "./venueReads.js";
import { type Checked, ok, VenueRefusal } from "./venueRefusal.js";

/** docs/protocol.md §4 limits, per second. */
export interface RateLimits {
  publicPerIp: number;
  claimsPerAccount: number;
  adminOrdersPerAccount: number;
  windowMs: number;
}

const VENUE_RATE_LIMITS: RateLimits = { publicPerIp: 10, claimsPerAccount: 5, adminOrdersPerAccount: 10, windowMs: 1000 };

export interface RestServerOptions {
  core: VenueCore;
  /** Auth header prefix (docs/protocol.md §2: configurable; default `service`). */
  headerPrefix?: string;
  /** false disables every limit (benchmarks that measure something else). */
  rateLimits?: Partial<RateLimits> | false;
  faults?: RestFaults;
  logger?: Logger;
  /** Largest request body accepted, bytes. */
  maxBodyBytes?: number;
  /** How answers are spelled (flavor.ts); default `spec`. */
  flavor?: SimFlavor;
  /** The insurance fund and the query API (docs/protocol.md §10); default an idle fund and a query over the core's accounts. */
  fund?: InsuranceFund;
  query?: PublicQuery;
}

const HTML_502 = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>";

export class RestServer {
  readonly faults: RestFaults;
  readonly flavor: WireFlavor;
  readonly #core: VenueCore;
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  readonly #maxBody: number;
  readonly #limiters: Record<LimitScope, SlidingWindowLimiter> | undefined;
  /** By path, then method; a `{id}` path matches one more segment (its value is the context's `param`). */
  readonly #routes = new Map<string, Partial<Record<Method, Route>>>();
  // Every delayed request waits on this one shutdown signal; any number may be pending at once, so
  // Node's 10-listener leak warning is a false alarm here (it cluttered the fault tests' output).
  readonly #closing = (() => {
    const c = new AbortController();
    setMaxListeners(0, c.signal);
    return c;
  })();

  constructor(options: RestServerOptions) {
    this.#core = options.core;
    this.#prefix = (options.headerPrefix ?? "service").toLowerCase();
    if (!/^[a-z0-9-]+$/.test(this.#prefix)) throw new RangeError("headerPrefix must be letters, digits and dashes");
    this.#logger = options.logger;
    this.#maxBody = options.maxBodyBytes ?? 64 * 1024;
    this.faults = options.faults ?? new RestFaults(options.core.now);
    const flavor = wireFlavor(options.flavor);
    this.flavor = flavor;
    if (options.rateLimits === false) {
      this.#limiters = undefined;
    } else {
      const l = { ...VENUE_RATE_LIMITS, ...options.rateLimits };
      const now = options.core.now;
      this.#limiters = {
        public: new SlidingWindowLimiter({ limit: l.publicPerIp, windowMs: l.windowMs, now }),
        claims: new SlidingWindowLimiter({ limit: l.claimsPerAccount, windowMs: l.windowMs, now }),
        admin: new SlidingWindowLimiter({ limit: l.adminOrdersPerAccount, windowMs: l.windowMs, now }),
        // docs/protocol.md §6: orders 10/s, account reads 10/s, positions 30 per 10 s, client info 10 per 60 s.
        positions: new SlidingWindowLimiter({ limit: 30, windowMs: 10_000, now }),
        orders: new SlidingWindowLimiter({ limit: 10, windowMs: 1_000, now }),
        account: new SlidingWindowLimiter({ limit: 10, windowMs: 1_000, now }),
        clientInfo: new SlidingWindowLimiter({ limit: 10, windowMs: 60_000, now }),
        // docs/protocol.md §8: key info 10 per 60 s.
        keyInfo: new SlidingWindowLimiter({ limit: 10, windowMs: 60_000, now }),
        // docs/protocol.md §10: one symbol's leverage 1/s; setting leverage 5 per 60 s.
        leverageOne: new SlidingWindowLimiter({ limit: 1, windowMs: 1_000, now }),
        leverageSet: new SlidingWindowLimiter({ limit: 5, windowMs: 60_000, now }),
        // docs/protocol.md §10: the query API's own pool is its weights (publicQuery.ts); this only stops a flood.
        query: new SlidingWindowLimiter({ limit: 20, windowMs: 1_000, now }),
      };
    }
    const core = this.#core;
    const pub = (handler: Handler): Route => ({ method: "GET", limit: "public", signed: false, handler });
    const routes: [string, Route][] = [
      ["/v1/public/trading_rewards/epoch_info", pub(({ search }) => withData(noParams(search), () => core.rewards.epochInfo()))],
      [
        "/v1/public/trading_rewards/epoch_data",
        pub(({ search }) => withData(noParams(search), () => flavor.epochData(core.rewards.epochData()))),
      ],
      ["/v1/public/campaign/user", pub(({ search }) => mapOk(campaignUserData(core, search), flavor.campaignUser))],
      ["/v1/public/liquidation", pub(({ search }) => liquidationList(core, search))],
      ["/v1/public/futures", pub(({ search }) => withData(noParams(search), () => futuresData(core)))],
      ["/v1/public/info", pub(({ search }) => withData(noParams(search), () => ({ rows: infoData(core).rows.map(flavor.infoRow) })))],
      ["/v1/admin/orders", { method: "GET", limit: "admin", signed: true, handler: (ctx) => this.#adminOrders(ctx) }],
      ["/v1/liquidation", { method: "POST", limit: "claims", signed: true, handler: (ctx) => this.#claim(ctx) }],
      ...orderRoutes(core, flavor),
      keyInfoRoute(core),
      liquidatorRecordRoute(core),
      ...leverageRoutes(core),
      ...supplyRoutes(core, options.fund ?? new InsuranceFund(core), options.query ?? new PublicQuery(core, () => undefined), flavor),
    ];
    for (const [path, route] of routes) this.#routes.set(path, { ...this.#routes.get(path), [route.method]: route });
  }

  /** The routes of a path: exact, else its `{id}` form (one more segment); `template` names the route. */
  #lookup(path: string): { methods: Partial<Record<Method, Route>>; param: string | undefined; template: string } | undefined {
    const exact = this.#routes.get(path);
    if (exact !== undefined) return { methods: exact, param: undefined, template: path };
    const cut = path.lastIndexOf("/");
    const template = `${path.slice(0, cut)}/{id}`;
    const templated = cut > 0 ? this.#routes.get(template) : undefined;
    if (templated === undefined || cut === path.length - 1) return undefined;
    try {
      return { methods: templated, param: decodeURIComponent(path.slice(cut + 1)), template };
    } catch {
      return undefined;
    }
  }

  /** The node:http request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#serve(req, res).catch((err: unknown) => {
      this.#logger?.error({ err }, "sim rest handler failed");
      this.#send(res, new VenueRefusal(-1000).status, new VenueRefusal(-1000).body());
    });
  };

  /** Abort the faults' pending delays (their sockets are destroyed). */
  close(): void {
    this.#closing.abort();
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? "/";
    const q = target.indexOf("?");
    const path = q === -1 ? target : target.slice(0, q);
    const search = new URLSearchParams(q === -1 ? "" : target.slice(q + 1));
    const method = req.method ?? "GET";
    const body = await this.#readBody(req);
    const receivedAt = this.#core.now();
    const started = performance.now();
    if (body === undefined) return this.#refuse(res, new VenueRefusal(-1005, `body larger than ${this.#maxBody} bytes`), path, started);

    const found = this.#lookup(path);
    if (found === undefined) return this.#send(res, 404, { success: false, code: -1000, message: `no such endpoint ${path}` });
    const route = found.methods[method as Method];
    if (route === undefined) return this.#send(res, 405, { success: false, code: -1000, message: `${method} is not allowed on ${path}` });
    const isClaim = path === "/v1/liquidation" || path === "/v1/claim_insurance_fund";

    const plan = this.faults.plan(method, path);
    if (plan.delayBeforeMs > 0 && !(await this.#wait(plan.delayBeforeMs))) return void res.destroy();
    if (plan.failure !== undefined) {
      if (isClaim) this.#core.logRejectedClaim(undefined, receivedAt, failureCode(plan.failure), "fault injected", peekLiquidationId(body));
      return this.#fail(res, plan.failure);
    }

    let signatory: Signatory | undefined;
    if (route.signed) {
      const auth = await checkSignedRequest(
        { headers: req.headers, method, pathWithQuery: target, body },
        { headerPrefix: this.#prefix, now: this.#core.now, isKeyAuthorized: (a, k) => this.#core.accounts.isKeyAuthorized(a, k) },
      );
      if (!auth.ok) {
        if (isClaim) this.#core.logRejectedClaim(undefined, receivedAt, auth.refusal.code, auth.refusal.message, peekLiquidationId(body));
        return this.#refuse(res, auth.refusal, path, started);
      }
      signatory = auth.value;
    }
    // Public limits count per IP address, signed ones per account (docs/protocol.md §4), each
    // operation in a window of its own (§6 gives every operation its own limit; the venue counts per
    // endpoint): placing and cancelling orders, or two account reads, never share one. Counted at
    // arrival, not now: the signature check and an injected delay took a varying time (rateLimiter.ts).
    const who = signatory === undefined ? (req.socket.remoteAddress ?? "?") : signatory.accountId;
    const limitKey = `${method} ${found.template}|${who}`;
    const limiter = this.#limiters?.[route.limit];
    if (limiter !== undefined && !limiter.tryAcquire(limitKey, receivedAt)) {
      const refusal = new VenueRefusal(-1003, `at most ${limiter.limit} requests per ${limiter.windowMs} ms`);
      if (isClaim) this.#core.logRejectedClaim(signatory?.accountId, receivedAt, refusal.code, refusal.message, peekLiquidationId(body));
      return this.#refuse(res, refusal, path, started);
    }

    const result = await route.handler({
      search,
      body,
      receivedAt,
      signatory,
      contentType: header(req, "content-type"),
      param: found.param,
      ip: req.socket.remoteAddress ?? "?",
    });
    if (plan.delayAfterMs > 0 && !(await this.#wait(plan.delayAfterMs))) return void res.destroy();
    if (plan.resetAfter || (result.ok && route.dropAnswer?.() === true)) return void res.destroy();
    if (!result.ok) return this.#refuse(res, result.refusal, path, started);
    this.#logger?.debug({ path, ms: performance.now() - started }, "sim rest ok");
    this.#send(res, 200, { success: true, data: result.value, timestamp: this.flavor.envelopeTimestamp(this.#core.now()) });
  }

  #adminOrders(ctx: RequestContext): Checked<unknown> {
    const account = ctx.signatory === undefined ? undefined : this.#core.accounts.get(ctx.signatory.accountId);
    if (account === undefined || !account.admin) return { ok: false, refusal: new VenueRefusal(-1002, "account is not an admin") };
    return adminOrdersData(this.#core, ctx.search);
  }

  async #claim(ctx: RequestContext): Promise<Checked<unknown>> {
    const accountId = (ctx.signatory as Signatory).accountId;
    const reject = (refusal: VenueRefusal): Checked<unknown> => {
      this.#core.logRejectedClaim(accountId, ctx.receivedAt, refusal.code, refusal.message, peekLiquidationId(ctx.body));
      return { ok: false, refusal };
    };
    if (ctx.search.size > 0) return reject(new VenueRefusal(-1004, [...ctx.search.keys()][0]));
    if (!/^application\/json\b/i.test(ctx.contentType ?? ""))
      return reject(new VenueRefusal(-1005, "Content-Type must be application/json"));
    let body: unknown;
    try {
      body = JSON.parse(ctx.body.toString("utf8"));
    } catch {
      return reject(new VenueRefusal(-1005, "body is not valid JSON"));
    }
    const result = await this.#core.submitClaim(accountId, body, ctx.receivedAt, "rest");
    if (result.ok) {
      // The daemon's "claim accepted" line says it already (npm start would print every claim twice).
      this.#logger?.debug({ liquidationId: result.value.liquidation_id, accountId }, "sim claim accepted");
      return ok(this.flavor.claimAnswer(result.value));
    }
    this.#logger?.info({ code: result.refusal.code, accountId }, "sim claim refused");
    return { ok: false, refusal: this.flavor.claimRefusal(result.refusal) };
  }

  async #readBody(req: IncomingMessage): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.#maxBody)
        tooBig = true; // keep reading so the answer can still be sent
      else chunks.push(chunk);
    }
    return tooBig ? undefined : Buffer.concat(chunks);
  }

  async #wait(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.#closing.signal });
      return true;
    } catch {
      return false;
    }
  }

  #fail(res: ServerResponse, failure: FaultAction): void {
    switch (failure.kind) {
      case "status":
        if (failure.body === "html") return this.#sendRaw(res, failure.status, "text/html", HTML_502);
        if (failure.body === "empty") return this.#sendRaw(res, failure.status, "text/plain", "");
        return this.#send(res, failure.status, { success: false, code: -1000, message: "unknown error" });
      case "code": {
        const r = new VenueRefusal(failure.code);
        return this.#send(res, r.status, r.body());
      }
      case "rateLimit": {
        const r = new VenueRefusal(-1003);
        return this.#send(res, r.status, r.body());
      }
      default:
        res.destroy();
    }
  }

  #refuse(res: ServerResponse, refusal: VenueRefusal, path: string, started: number): void {
    this.#logger?.debug({ path, code: refusal.code, ms: performance.now() - started }, "sim rest refused");
    this.#send(res, refusal.status, refusal.body());
  }

  #send(res: ServerResponse, status: number, payload: unknown): void {
    this.#sendRaw(res, status, "application/json", JSON.stringify(payload));
  }

  #sendRaw(res: ServerResponse, status: number, contentType: string, text: string): void {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }
}

function withData<T>(check: Checked<void>, build: () => T): Checked<T> {
  return check.ok ? ok(build()) : check;
}

function mapOk<T, U>(checked: Checked<T>, f: (v: T) => U): Checked<U> {
  return checked.ok ? ok(f(checked.value)) : checked;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === "string" ? v : undefined;
}

/** Code recorded in the claim log for a fault: the venue code answered, or -1 for a dropped connection. */
function failureCode(a: FaultAction): number {
  if (a.kind === "code") return a.code;
  if (a.kind === "rateLimit") return -1003;
  return a.kind === "status" ? -1000 : -1;
}

/** Best-effort id of a claim body, for the claim log of refused requests. */
function peekLiquidationId(body: Buffer): number | undefined {
  try {
    const v = (JSON.parse(body.toString("utf8")) as { liquidation_id?: unknown }).liquidation_id;
    return typeof v === "number" && Number.isSafeInteger(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
