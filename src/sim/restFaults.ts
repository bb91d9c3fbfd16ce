/**
 * REST faults on demand, for tests and benchmarks: slow answers, 5xx, venue error codes (-1011 by
 * default), 429 storms and dropped connections. Each fault applies to matching requests a number of
 * times and/or for a while; several can be armed at once (delays add up, the first failure wins).
 */
export interface FaultScope {
  /** Exact request path (no query), e.g. "/v1/liquidation"; default every path. */
  path?: string;
  /** HTTP method, e.g. "POST"; default every method. */
  method?: string;
  /** Apply to this many matching requests, then disarm (default: unlimited). */
  times?: number;
  /** Disarm after this many ms (default: until cleared). */
  forMs?: number;
}

/**
 * "before": the request is never processed (a claim is not applied).
 * "after": the request is processed, then the answer is delayed or the socket dropped — the claim
 * was applied but the client cannot know: the unknown-outcome case a claimer must survive.
 */
export type FaultPhase = "before" | "after";

export type FaultAction =
  | { kind: "delay"; ms: number; phase: FaultPhase }
  | { kind: "status"; status: number; body: "envelope" | "html" | "empty" }
  | { kind: "code"; code: number }
  | { kind: "rateLimit" }
  | { kind: "reset"; phase: FaultPhase };

interface Rule {
  id: number;
  action: FaultAction;
  path: string | undefined;
  method: string | undefined;
  remaining: number;
  until: number;
}

/** What the server must do to one request. */
export interface FaultPlan {
  delayBeforeMs: number;
  delayAfterMs: number;
  /** Answer this instead of processing (status / code / rateLimit / reset before). */
  failure: FaultAction | undefined;
  resetAfter: boolean;
}

export class RestFaults {
  readonly #now: () => number;
  #rules: Rule[] = [];
  #nextId = 1;
  #injected = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #arm(action: FaultAction, scope: FaultScope): () => void {
    const times = scope.times ?? Number.POSITIVE_INFINITY;
    if (!(times > 0)) throw new RangeError("times must be positive");
    if (scope.forMs !== undefined && !(scope.forMs > 0)) throw new RangeError("forMs must be positive");
    const rule: Rule = {
      id: this.#nextId++,
      action,
      path: scope.path,
      method: scope.method?.toUpperCase(),
      remaining: times,
      until: scope.forMs === undefined ? Number.POSITIVE_INFINITY : this.#now() + scope.forMs,
    };
    this.#rules.push(rule);
    return () => {
      this.#rules = this.#rules.filter((r) => r.id !== rule.id);
    };
  }

  /** Hold matching requests `ms` before processing ("before") or before answering ("after"). Returns a disarm function. */
  delay(ms: number, scope: FaultScope & { phase?: FaultPhase } = {}): () => void {
    if (!(ms >= 0 && Number.isFinite(ms))) throw new RangeError("delay must be a finite number ≥ 0");
    return this.#arm({ kind: "delay", ms, phase: scope.phase ?? "before" }, scope);
  }

  /** Answer with an HTTP 5xx (an envelope with -1000, an HTML proxy page, or nothing). */
  serverError(status = 503, scope: FaultScope & { body?: "envelope" | "html" | "empty" } = {}): () => void {
    if (!Number.isInteger(status) || status < 500 || status > 599) throw new RangeError("status must be 5xx");
    return this.#arm({ kind: "status", status, body: scope.body ?? "envelope" }, scope);
  }

  /** Answer with a venue error code and its HTTP status (default -1011, "retry in a few seconds"). */
  venueError(code = -1011, scope: FaultScope = {}): () => void {
    return this.#arm({ kind: "code", code }, scope);
  }

  /** Answer 429 / -1003 to every matching request, whatever the real limits say. */
  rateLimitStorm(scope: FaultScope = {}): () => void {
    return this.#arm({ kind: "rateLimit" }, scope);
  }

  /** Destroy the connection without an answer, before or after processing. */
  reset(scope: FaultScope & { phase?: FaultPhase } = {}): () => void {
    return this.#arm({ kind: "reset", phase: scope.phase ?? "before" }, scope);
  }

  clear(): void {
    this.#rules = [];
  }

  /** Number of requests a fault was applied to so far. */
  get injected(): number {
    return this.#injected;
  }

  get armed(): number {
    this.#prune();
    return this.#rules.length;
  }

  #prune(): void {
    const now = this.#now();
    this.#rules = this.#rules.filter((r) => r.remaining > 0 && r.until > now);
  }

  /** Decide what happens to one request, consuming one use of every fault applied. */
  plan(method: string, path: string): FaultPlan {
    this.#prune();
    const plan: FaultPlan = { delayBeforeMs: 0, delayAfterMs: 0, failure: undefined, resetAfter: false };
    let applied = false;
    for (const r of this.#rules) {
      if ((r.path !== undefined && r.path !== path) || (r.method !== undefined && r.method !== method)) continue;
      const a = r.action;
      if (a.kind === "delay") {
        if (a.phase === "before") plan.delayBeforeMs += a.ms;
        else plan.delayAfterMs += a.ms;
      } else if (a.kind === "reset" && a.phase === "after") {
        plan.resetAfter = true;
      } else if (plan.failure === undefined) {
        plan.failure = a;
      } else {
        continue; // a second failure would not be seen: do not use it up
      }
      r.remaining -= 1;
      applied = true;
    }
    if (applied) this.#injected += 1;
    return plan;
  }
}
