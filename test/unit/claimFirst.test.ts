/**
 * Claim first (Claimer.sendNow): a frame whose offers leave the pump idle and find a claims permit
 * free sends its best claim inside the frame's handler — the claim is at the transport before
 * `ingest.stream` returns — and only then are the liquidations counted. Without a free permit the
 * pump sends it as before; a frame of several liquidations sends its best.
 */
import { afterEach, describe, expect, test } from "vitest";
import { SliceQueue } from "../../src/daemon/feeds/sliceQueue.js";
import type { LiquidationEntry } from "../../src/venue/wire.js";
import { type ClaimerRig, claimerRig, ingestFor, Permits } from "../support/daemonClaimerRig.js";
import { waitFor } from "../support/wait.js";

function entry(id: number, qty: number): LiquidationEntry {
  return {
    liquidationId: id,
    timestamp: Date.now(),
    type: "liquidated",
    positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: qty, liquidatorFee: 0.006 }],
  };
}

describe("claim first", () => {
  let rig: ClaimerRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  async function setup(free: () => boolean) {
    const permits = new Permits();
    let counted = -1;
    rig = await claimerRig({ acquire: permits.acquire, tryAcquire: free });
    const r = rig;
    // The counting sees the claim already sent.
    const ingest = ingestFor(r, { slices: new SliceQueue(), liquidationsSeen: () => (counted = r.venue.calls.length) });
    await new Promise((resolve) => setImmediate(resolve)); // the pump is waiting for work
    return { permits, ingest, r, counted: () => counted };
  }

  test("with a free permit the claim reaches the transport inside the frame's handler, before the counting", async () => {
    const { ingest, r, counted, permits } = await setup(() => true);
    ingest.stream(["liquidation", [entry(7, 2)], Date.now()]);
    expect(r.venue.ids()).toEqual([7]);
    expect(counted()).toBe(1);
    expect(r.records().filter((x) => x.t === "intent")).toHaveLength(1); // the intent came first
    await new Promise((resolve) => setImmediate(resolve));
    expect(permits.waiting).toBe(0); // the pump found nothing left to send
  });

  test("a frame of several liquidations sends its best at once, the rest through the pump", async () => {
    const { ingest, r, permits } = await setup(() => true);
    ingest.stream(["liquidation", [entry(1, 1), entry(2, 3), entry(3, 2)], Date.now()]);
    expect(r.venue.ids()).toEqual([2]);
    await waitFor(() => permits.waiting === 1, "the pump asks for the next permit");
    permits.grant();
    await waitFor(() => r.venue.calls.length === 2, "the next claim");
    expect(r.venue.ids()).toEqual([2, 3]);
  });

  test("without a free permit nothing leaves in the handler; the pump sends it on its permit", async () => {
    const { ingest, r, permits } = await setup(() => false);
    ingest.stream(["liquidation", [entry(9, 2)], Date.now()]);
    expect(r.venue.calls).toHaveLength(0);
    await waitFor(() => permits.waiting === 1, "the pump asks for a permit");
    permits.grant();
    await waitFor(() => r.venue.calls.length === 1, "the claim");
    expect(r.venue.ids()).toEqual([9]);
  });
});
