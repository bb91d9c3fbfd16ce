/**
 * What the capture and the live shadows hear of the account's own claims: both endpoints, the
 * liquidation's and the insurance fund's (one id space, docs/protocol.md §10), told alike. A fund
 * claim the taps miss is a rival's take to the shadows and to a backtest of the capture.
 */
import { describe, expect, test } from "vitest";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import { capturingFundTransport, capturingTransport } from "../../src/lab/capture/capturingTransport.js";
import { ownClaimsTransport, ownFundClaimsTransport } from "../../src/lab/shadow/ownClaimsTransport.js";
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
const liqBody = (id: number) => ({ liquidation_id: id, ratio_qty_request: 1, limit_price: {} });
const fundBody = (id: number) => ({ claim_id: id, symbol: "PERP_ETH_USDC", qty_request: 0.5, limit_price: { PERP_ETH_USDC: 3000 } });

describe("the capture hears both endpoints", () => {
  const recorded = (seen: CaptureEvent[]) =>
    seen.map((e) => (e.k === "claim" ? [e.id, e.code, e.sentAt, e.at, e.result !== undefined] : []));
  const want = [
    [7, 0, 1_000, 1_030, true],
    [8, -1202, 1_030, 1_060, false],
    [9, -1, 1_060, 1_090, false],
  ];

  test("liquidation claims: recorded after the answer with the venue's code, the result passed through", async () => {
    const clock = { t: 1_000 };
    const answer = answers(clock);
    const seen: CaptureEvent[] = [];
    const t = capturingTransport(
      { claimLiquidation: (b) => answer(b.liquidation_id) },
      { record: (e) => void seen.push(e) },
      () => clock.t,
    );
    await expect(t.claimLiquidation(liqBody(7))).resolves.toEqual(result(7));
    await expect(t.claimLiquidation(liqBody(8))).rejects.toThrow(/-1202/);
    await expect(t.claimLiquidation(liqBody(9))).rejects.toThrow(/hang up/);
    expect(recorded(seen)).toEqual(want);
  });

  test("fund claims: recorded the same way under their claim_id, with the request as sent", async () => {
    const clock = { t: 1_000 };
    const answer = answers(clock);
    const seen: CaptureEvent[] = [];
    const t = capturingFundTransport(
      { claimInsuranceFund: (b) => answer(b.claim_id) },
      { record: (e) => void seen.push(e) },
      () => clock.t,
    );
    await expect(t.claimInsuranceFund(fundBody(7))).resolves.toEqual(result(7));
    await expect(t.claimInsuranceFund(fundBody(8))).rejects.toThrow(/-1202/);
    await expect(t.claimInsuranceFund(fundBody(9))).rejects.toThrow(/hang up/);
    expect(recorded(seen)).toEqual(want);
    expect(seen[0]?.k === "claim" ? seen[0].request : undefined).toEqual(fundBody(7));
  });
});

describe("the shadows hear both endpoints", () => {
  function own() {
    const told: string[] = [];
    return {
      told,
      own: {
        ownSent: (id: number, at: number) => void told.push(`sent ${id}@${at}`),
        ownRefused: (id: number) => void told.push(`refused ${id}`),
      },
    };
  }
  // Sent before the answer; a venue refusal takes it back; a lost answer may have reached the venue, so it stays.
  const want = ["sent 7@1000", "sent 8@1030", "refused 8", "sent 9@1060"];

  test("liquidation claims", async () => {
    const clock = { t: 1_000 };
    const answer = answers(clock);
    const o = own();
    const t = ownClaimsTransport({ claimLiquidation: (b) => answer(b.liquidation_id) }, o.own, () => clock.t);
    for (const id of [7, 8, 9]) await t.claimLiquidation(liqBody(id)).catch(() => undefined);
    expect(o.told).toEqual(want);
  });

  test("fund claims, under their claim_id", async () => {
    const clock = { t: 1_000 };
    const answer = answers(clock);
    const o = own();
    const t = ownFundClaimsTransport({ claimInsuranceFund: (b) => answer(b.claim_id) }, o.own, () => clock.t);
    for (const id of [7, 8, 9]) await t.claimInsuranceFund(fundBody(id)).catch(() => undefined);
    expect(o.told).toEqual(want);
  });
});
