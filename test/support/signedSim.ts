/**
 * The simulated venue on port 0 for one test file, as a signed client meets it: a venue clock the
 * tests move (rate windows and the 300 s rule do not depend on machine speed), the account's signer,
 * signed calls over real HTTP, and positions opened through a claim. Started in `beforeAll` and
 * closed in `afterAll`, registered here where it is made.
 */
import { request } from "undici";
import { afterAll, beforeAll, expect } from "vitest";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, startSimulator } from "../../src/sim/startSimulator.js";
import { Signer } from "../../src/venue/signer.js";

export interface Answer {
  status: number;
  json: Record<string, unknown>;
}

export interface SignedSim {
  readonly sim: SimulatorHandle;
  readonly signer: Signer;
  readonly clock: { t: number };
  /** One call; paths outside `/v1/public` are signed at the venue clock. `raw`: the body as is. */
  call(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, raw?: string): Promise<Answer>;
  /** A position of `qty` (signed) in `symbol`, taken over from a liquidation by a claim. */
  hold(symbol: string, qty: number): Promise<void>;
}

export function signedSim(o: { seed: number; marks?: Record<string, number> }): SignedSim {
  const clock = { t: Date.now() };
  let sim: SimulatorHandle | undefined;
  let signer: Signer | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ seed: o.seed, now: () => clock.t, scenario: { ...QUIET_SCENARIO, markIntervalMs: 0 } });
    signer = new Signer({ secret: sim.secret, accountId: sim.accountId });
    for (const [symbol, price] of Object.entries(o.marks ?? {})) sim.core.setMark(symbol, price);
  });
  afterAll(async () => {
    await sim?.close();
  });
  const started = (): { sim: SimulatorHandle; signer: Signer } => {
    if (sim === undefined || signer === undefined) throw new Error("the simulator starts in beforeAll");
    return { sim, signer };
  };
  return {
    get sim() {
      return started().sim;
    },
    get signer() {
      return started().signer;
    },
    clock,
    async call(method, path, body, raw) {
      const { sim, signer } = started();
      const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
      const headers: Record<string, string> = text === undefined ? {} : { "content-type": "application/json" };
      if (!path.startsWith("/v1/public")) Object.assign(headers, signer.headers(method, path, text, clock.t));
      const res = await request(`${sim.baseUrl}${path}`, { method, headers, ...(text !== undefined ? { body: text } : {}) });
      const answer = await res.body.text();
      return { status: res.statusCode, json: answer === "" ? {} : (JSON.parse(answer) as Record<string, unknown>) };
    },
    async hold(symbol, qty) {
      const { sim } = started();
      const id = sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
      const mark = sim.core.mark(symbol) as number;
      const limit = qty > 0 ? mark * 2 : mark / 2;
      const r = await sim.core.submitClaim(
        sim.accountId,
        { liquidation_id: id, ratio_qty_request: 1, limit_price: { [symbol]: limit } },
        clock.t,
      );
      expect(r.ok).toBe(true);
    },
  };
}
