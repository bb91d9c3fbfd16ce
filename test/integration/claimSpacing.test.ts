/**
 * Claims are spaced by when they were written to a socket, not by when their permit was granted
 * (docs/protocol.md §4.3: 5 claims a second, counted by the venue as they arrive). A claim on a warm
 * claim lane is written inside its send; one on a lane that must connect first, or on a pooled
 * connection (both lanes busy with unanswered claims), is written later — an event-loop turn, a
 * handshake, or a stall of the process later. The limiter is restamped at the write, so the next
 * claim cannot follow such a late one more closely than the spacing (limiters.ts, httpTransport.ts).
 */
import { afterEach, expect, test } from "vitest";
import { createVenueLimiters } from "../../src/venue/limiters.js";
import { RestClient } from "../../src/venue/rest.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { type FakeVenueServer, ok, startFakeVenue } from "../support/fakeVenue.js";
import { VENUE_LIMITS as LIMITS } from "../support/venueLimits.js";

const CLAIM = "/v1/liquidation";

const teardown: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const t of teardown.splice(0).reverse()) await t();
});

function answer(id: number): ReturnType<typeof ok> {
  return ok({ liquidation_id: id, timestamp: Date.now(), type: "liquidated", positions_by_perp: [] });
}

function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a stall: GC, a long handler, a busy machine
  }
}

async function rig(): Promise<{ venue: FakeVenueServer; rest: RestClient; limiters: ReturnType<typeof createVenueLimiters> }> {
  const venue = await startFakeVenue();
  teardown.push(() => venue.close());
  // Every claim answered after 1.5 s: both claim lanes stay busy, the 3rd and 4th claims go through the pool.
  venue.route("POST", CLAIM, (req) => ({ ...answer(JSON.parse(req.body).liquidation_id), delayMs: 1_500 }));
  const limiters = createVenueLimiters(LIMITS);
  teardown.push(() => limiters.stop());
  const signer = new Signer({ secret: generateKeyPair().secret, accountId: "0xabc" });
  const rest = new RestClient({ baseUrl: venue.baseUrl, timeoutMs: 5_000, signer, limiters });
  teardown.push(() => rest.close());
  return { venue, rest, limiters };
}

test("a pooled claim written late (the process stalled before the pool wrote it): the next claim is spaced from its write", async () => {
  const { venue, rest, limiters } = await rig();
  const spacing = limiters.spacingMs("claims"); // 210 ms
  const answers: Promise<unknown>[] = [];
  for (let id = 1; id <= 4; id++) {
    await limiters.acquire("claims"); // as the claimer does: a permit, then the send on it
    answers.push(
      rest.claimLiquidation({ liquidation_id: id, ratio_qty_request: 1, limit_price: { PERP_ETH_USDC: 1 } }, { permitHeld: true }),
    );
    // The 3rd claim was handed to the pool, which writes it an event-loop turn later: 150 ms later here.
    if (id === 3) blockEventLoop(150);
  }
  await Promise.all(answers);
  const at = venue.requests.filter((r) => r.path === CLAIM).map((r) => r.receivedAt);
  expect(at).toHaveLength(4);
  // Spaced from its permit, the 4th claim would arrive ~60 ms after the 3rd (210 − 150); spaced
  // from the 3rd's write, a full spacing after it (less a little arrival jitter).
  expect(at[3]! - at[2]!, `arrivals ${at.map((t) => t - at[0]!).join(", ")} ms`).toBeGreaterThanOrEqual(spacing - 40);
  for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(spacing - 40);
});
