/**
 * GET /v1/public/campaign/user (docs/protocol.md §A.2.4, §4): statistics of one user in one
 * campaign. Volume, fill count and pnl come from what the user actually did in the campaign window
 * (seeded orders, and claims made on the simulator), so they grow while the simulator runs.
 */
import { Prng } from "./prng.js";
import { intParam, readParams } from "./queryParams.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

const CAMPAIGN_PARAMS = ["campaign_id", "account_id", "address", "order_tag", "broker_id", "symbol"] as const;

export interface Campaign {
  campaignId: number;
  startTime: number;
  endTime: number;
}

/** Something a user did that counts toward a campaign. */
export interface CampaignFill {
  time: number;
  symbol: string;
  notional: number;
  pnl: number;
  orderTag: string | null;
}

export interface CampaignFilter {
  campaignId: number;
  accountId: string | undefined;
  address: string | undefined;
  orderTag: string | undefined;
  brokerId: string | undefined;
  symbol: string | undefined;
}

export interface CampaignStats {
  volume: number;
  filled_order_count: number;
  updated_time: number;
  pnl: number;
  total_deposit_amount: number;
  total_withdrawal_amount: number;
  start_account_value: number;
  end_account_value: number;
  new_invited_referee: number;
  new_traded_referee: number;
  total_staked_native: number;
  total_staked_esnative: number;
}

export function parseCampaignQuery(search: URLSearchParams): Checked<CampaignFilter> {
  const p = readParams(search, CAMPAIGN_PARAMS);
  if (!p.ok) return p;
  const params = p.value;
  if (!params.has("campaign_id")) return refused(-1005, "campaign_id is required");
  const id = intParam(params, "campaign_id", 0, 1, Number.MAX_SAFE_INTEGER);
  if (!id.ok) return id;
  const accountId = params.get("account_id");
  const address = params.get("address");
  if (accountId === undefined && address === undefined) return refused(-1005, "account_id or address is required");
  return ok({
    campaignId: id.value,
    accountId,
    address,
    orderTag: params.get("order_tag"),
    brokerId: params.get("broker_id"),
    symbol: params.get("symbol"),
  });
}

/** FNV-1a: a stable seed per (user, campaign) so a user's static figures never change between calls. */
function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The statistics of one user; `fills` are all the user's fills (filtered here). */
export function campaignStats(
  campaign: Campaign,
  accountId: string,
  fills: readonly CampaignFill[],
  q: CampaignFilter,
  now: number,
): CampaignStats {
  const end = Math.min(now, campaign.endTime);
  let volume = 0;
  let count = 0;
  let pnl = 0;
  let updated = campaign.startTime;
  for (const f of fills) {
    if (f.time < campaign.startTime || f.time > end) continue;
    if (q.symbol !== undefined && f.symbol !== q.symbol) continue;
    if (q.orderTag !== undefined && f.orderTag !== q.orderTag) continue;
    volume += f.notional;
    pnl += f.pnl;
    count += 1;
    if (f.time > updated) updated = f.time;
  }
  const prng = new Prng(hashSeed(`${accountId}/${campaign.campaignId}`));
  const started = now >= campaign.startTime;
  const startValue = started ? round6(prng.logUniform(1_000, 500_000)) : 0;
  const deposits = started ? round6(prng.chance(0.6) ? prng.logUniform(100, 50_000) : 0) : 0;
  const withdrawals = started ? round6(prng.chance(0.3) ? prng.logUniform(100, 20_000) : 0) : 0;
  const invited = started ? prng.int(0, 12) : 0;
  return {
    volume: round6(volume),
    filled_order_count: count,
    updated_time: started ? updated : campaign.startTime,
    pnl: round6(pnl),
    total_deposit_amount: deposits,
    total_withdrawal_amount: withdrawals,
    start_account_value: startValue,
    end_account_value: started ? Math.max(0, round6(startValue + deposits - withdrawals + pnl)) : 0,
    new_invited_referee: invited,
    new_traded_referee: started ? prng.int(0, invited) : 0,
    total_staked_native: started ? round6(prng.chance(0.5) ? prng.logUniform(10, 100_000) : 0) : 0,
    total_staked_esnative: started ? round6(prng.chance(0.3) ? prng.logUniform(10, 50_000) : 0) : 0,
  };
}
