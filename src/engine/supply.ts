/**
 * Where an offer came from (issue #35): the liquidation stream, or the insurance fund's positions
 * (docs/protocol.md §10). The `supply` label of `claims_submitted_total` and `opportunities_total`, the
 * report's `supply` column. A plain list below core/ and observe/ alike.
 */
export const SUPPLIES = ["liquidation", "insurance_fund"] as const;
export type Supply = (typeof SUPPLIES)[number];
