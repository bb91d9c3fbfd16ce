import { describe, expect, it } from "vitest";
import { parseCampaignQuery } from "../../src/sim/campaigns.js";
import { Prng } from "../../src/sim/prng.js";
import { Rewards } from "../../src/sim/rewards.js";
import { VenueCore } from "../../src/sim/venueCore.js";
import { campaignUserData, SIM_BROKER_ID } from "../../src/sim/venueReads.js";

const NOW = 1_760_000_000_000;

describe("rewards epochs", () => {
  it("past Confirmed, previous Pending, current Ongoing, next '0'", () => {
    const r = new Rewards(new Prng(1), NOW, { startEpoch: 4 });
    const data = r.epochData();
    expect(data.current_epoch).toBe(4);
    expect(data.rows.map((x) => [x.epoch_id, x.reward_status])).toEqual([
      [1, "Confirmed"],
      [2, "Confirmed"],
      [3, "Pending"],
      [4, "Ongoing"],
      [5, "0"],
    ]);
    const info = r.epochInfo();
    expect(info.current_epoch).toBe(4);
    const cur = info.rows.find((x) => x.epoch_id === 4)!;
    expect(cur.start_time).toBeLessThanOrEqual(NOW);
    expect(cur.end_time).toBeGreaterThan(NOW);
    for (let i = 1; i < info.rows.length; i++) expect(info.rows[i]!.start_time).toBe(info.rows[i - 1]!.end_time);
  });

  it("advancing moves every status one step and adds a future epoch", () => {
    const r = new Rewards(new Prng(1), NOW, { startEpoch: 2 });
    expect(r.epochData().rows.map((x) => x.reward_status)).toEqual(["Pending", "Ongoing", "0"]);
    r.advance(NOW + 1000);
    expect(r.epochData().rows.map((x) => x.reward_status)).toEqual(["Confirmed", "Pending", "Ongoing", "0"]);
    r.advance(NOW + 2000);
    const rows = r.epochData().rows;
    expect(rows.map((x) => x.reward_status)).toEqual(["Confirmed", "Confirmed", "Pending", "Ongoing", "0"]);
    const info = r.epochInfo().rows;
    expect(info[3]!.start_time).toBe(NOW + 2000);
    expect(info[2]!.end_time).toBe(NOW + 2000);
  });

  it("released totals sum the confirmed epochs' rewards", () => {
    const r = new Rewards(new Prng(3), NOW, { startEpoch: 5 });
    const d = r.epochData();
    const confirmed = r
      .epochInfo()
      .rows.filter((x) => x.epoch_id <= 3)
      .reduce((s, x) => s + x.max_reward_amount, 0);
    expect(d.total_released_trading_rewards_native + d.total_released_trading_rewards_escrow).toBeCloseTo(confirmed, 6);
    for (const row of d.rows.filter((x) => x.reward_status !== "0")) expect(row.r_major + row.r_alts).toBeGreaterThan(0);
  });

  it("the current epoch's scores grow while trading goes on", () => {
    const r = new Rewards(new Prng(3), NOW, { startEpoch: 3 });
    const before = r.epochData().rows[2]!.total_trader_score_major;
    r.accrue(10);
    expect(r.epochData().rows[2]!.total_trader_score_major).toBeGreaterThan(before);
  });
});

describe("campaign user statistics", () => {
  const core = new VenueCore({ seed: 5, now: () => NOW, orderCounts: [300] });
  const user = core.orderUsers[0]!;
  const code = (qs: string) => {
    const r = campaignUserData(core, new URLSearchParams(qs));
    return r.ok ? 0 : r.refusal.code;
  };

  it.each([
    ["account_id=x", -1005],
    ["campaign_id=abc&account_id=x", -1005],
    ["campaign_id=2", -1005],
    ["campaign_id=2&account_id=x&foo=1", -1004],
    [`campaign_id=99&account_id=${user.accountId}`, -1006],
    ["campaign_id=2&account_id=0xnobody", -1006],
    [`campaign_id=2&account_id=${user.accountId}&address=0x0000000000000000000000000000000000000000`, -1006],
    [`campaign_id=2&account_id=${user.accountId}`, 0],
    [`campaign_id=2&address=${user.address.toUpperCase().replace("0X", "0x")}`, 0],
  ])("%s → %s", (qs, expected) => {
    expect(code(qs)).toBe(expected);
  });

  it("parses the optional filters", () => {
    const q = parseCampaignQuery(new URLSearchParams("campaign_id=2&address=0xa&order_tag=t&broker_id=b&symbol=PERP_BTC_USDC"));
    expect(q.ok && q.value).toEqual({
      campaignId: 2,
      accountId: undefined,
      address: "0xa",
      orderTag: "t",
      brokerId: "b",
      symbol: "PERP_BTC_USDC",
    });
  });

  it("volume and fill count come from the user's filled orders in the window, and filters narrow them", () => {
    const get = (qs: string) => {
      const r = campaignUserData(core, new URLSearchParams(`campaign_id=2&account_id=${user.accountId}${qs}`));
      if (!r.ok) throw new Error(r.refusal.message);
      return r.value;
    };
    const all = get("");
    const campaign = core.campaigns.find((c) => c.campaignId === 2)!;
    const fills = core
      .ordersOf(user.accountId)
      .filter((o) => o.executed_quantity > 0 && o.updated_time >= campaign.startTime && o.updated_time <= NOW);
    expect(all.filled_order_count).toBe(fills.length);
    expect(all.volume).toBeCloseTo(
      fills.reduce((s, o) => s + o.executed_quantity * o.average_executed_price, 0),
      4,
    );
    const btc = get("&symbol=PERP_BTC_USDC");
    expect(btc.filled_order_count).toBe(fills.filter((o) => o.symbol === "PERP_BTC_USDC").length);
    expect(btc.filled_order_count).toBeLessThan(all.filled_order_count);
    expect(get("&order_tag=grid_bot").filled_order_count).toBe(fills.filter((o) => o.order_tag === "grid_bot").length);
    expect(get(`&broker_id=${SIM_BROKER_ID}`).filled_order_count).toBe(all.filled_order_count);
    expect(get("&broker_id=other").filled_order_count).toBe(0);
    expect(all.end_account_value).toBeGreaterThanOrEqual(0);
    expect(get("").start_account_value).toBe(all.start_account_value); // stable between calls
  });
});
