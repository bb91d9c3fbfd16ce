/**
 * What the capture and the live shadows hear of the account's own claims: both endpoints, the
 * liquidation's and the insurance fund's (one id space, docs/protocol.md §10), told alike. A fund
 * claim the taps miss is a rival's take to the shadows and to a backtest of the capture.
 */
import { describe, expect, test } from "vitest";
import type { CaptureEvent, CaptureTap } from "../../src/daemon/records/captureTap.js";
import { capturingFundTransport, capturingTransport } from "../../src/lab/capture/capturingTransport.js";
import { type OwnClaims, ownClaimsTransport, ownFundClaimsTransport } from "../../src/lab/shadow/ownClaimsTransport.js";
import { VenueError } from "../../src/venue/errors.js";

const result = (id: number) => ({ liquidation_id: id, timestamp: 1, type: "claim", positions_by_perp: [] });
const refuse = (code: number) => new VenueError({ venueCode: code, status: 400, venueMessage: "no", endpoint: "claim" });
/** Applied for 7, refused -1202 for 8, lost below the venue for 9; 30 ms per answer. */
function answers(clock: { t: number }) {
  return async (id: number) => {
    clock.t += 30;
    if (id === 8) throw refuse(-1202);
    if (id === 9) throw new Error("socket hang up");
    return result(id);
  };
}
type Answer = (id: number) => Promise<ReturnType<typeof result>>;
type Now = () => number;
type Send = (id: number) => Promise<unknown>;

/** Each endpoint: its body for an id, and a claim of it through the capture's and the shadows' taps. */
const ENDPOINTS = [
  {
    name: "liquidation claims",
    body: (id: number) => ({ liquidation_id: id, ratio_qty_request: 1, limit_price: {} }),
    captured(answer: Answer, tap: CaptureTap, now: Now): Send {
      const t = capturingTransport({ claimLiquidation: (b) => answer(b.liquidation_id) }, tap, now);
      return (id) => t.claimLiquidation(this.body(id));
    },
    told(answer: Answer, own: OwnClaims, now: Now): Send {
      const t = ownClaimsTransport({ claimLiquidation: (b) => answer(b.liquidation_id) }, own, now);
      return (id) => t.claimLiquidation(this.body(id));
    },
  },
  {
    name: "fund claims, under their claim_id",
    body: (id: number) => ({ claim_id: id, symbol: "PERP_ETH_USDC", qty_request: 0.5, limit_price: { PERP_ETH_USDC: 3000 } }),
    captured(answer: Answer, tap: CaptureTap, now: Now): Send {
      const t = capturingFundTransport({ claimInsuranceFund: (b) => answer(b.claim_id) }, tap, now);
      return (id) => t.claimInsuranceFund(this.body(id));
    },
    told(answer: Answer, own: OwnClaims, now: Now): Send {
      const t = ownFundClaimsTransport({ claimInsuranceFund: (b) => answer(b.claim_id) }, own, now);
      return (id) => t.claimInsuranceFund(this.body(id));
    },
  },
];

describe.each(ENDPOINTS)("$name", (endpoint) => {
  test("the capture records each after its answer, with the venue's code and the request as sent; the result passes through", async () => {
    const clock = { t: 1_000 };
    const seen: CaptureEvent[] = [];
    const send = endpoint.captured(answers(clock), { record: (e) => void seen.push(e) }, () => clock.t);
    await expect(send(7)).resolves.toEqual(result(7));
    await expect(send(8)).rejects.toThrow(/-1202/);
    await expect(send(9)).rejects.toThrow(/hang up/);
    expect(seen.map((e) => (e.k === "claim" ? [e.id, e.code, e.sentAt, e.at, e.result !== undefined] : []))).toEqual([
      [7, 0, 1_000, 1_030, true],
      [8, -1202, 1_030, 1_060, false],
      [9, -1, 1_060, 1_090, false],
    ]);
    expect(seen[0]?.k === "claim" ? seen[0].request : undefined).toEqual(endpoint.body(7));
  });

  test("the shadows are told before the answer; a venue refusal takes it back, a lost answer may have reached the venue", async () => {
    const clock = { t: 1_000 };
    const told: string[] = [];
    const own = {
      ownSent: (id: number, at: number) => void told.push(`sent ${id}@${at}`),
      ownRefused: (id: number) => void told.push(`refused ${id}`),
    };
    const send = endpoint.told(answers(clock), own, () => clock.t);
    for (const id of [7, 8, 9]) await send(id).catch(() => undefined);
    expect(told).toEqual(["sent 7@1000", "sent 8@1030", "refused 8", "sent 9@1060"]);
  });
});
