/** The venue's published limits (docs/protocol.md §4), as `venue.limits` holds them by default. */
export const VENUE_LIMITS = {
  public_per_second: 10,
  claims_per_second: 5,
  admin_orders_per_second: 10,
  account_reads_per_second: 3,
  orders_per_second: 10,
};
