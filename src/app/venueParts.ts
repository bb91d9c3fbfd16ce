/** The venue's REST side: the signer, the rate limiters, the REST client and its health. */
import type { Config } from "../config/schema.js";
import type { PolicyState } from "../daemon/claim/policyState.js";
import { RestHealth } from "../daemon/feeds/restHealth.js";
import type { Metrics } from "../observe/metrics.js";
import { skippedRowsReporter } from "../observe/skippedRowsLog.js";
import { createVenueLimiters, type VenueLimiters } from "../venue/limiters.js";
import { RestClient } from "../venue/rest.js";
import { Signer } from "../venue/signer.js";
import type { VenueConnection } from "./venueConnection.js";

export interface VenueParts {
  signer: Signer;
  limiters: VenueLimiters;
  restHealth: RestHealth;
  rest: RestClient;
}

export function venueParts(o: {
  config: Config;
  venue: VenueConnection;
  metrics: Metrics;
  policy: PolicyState;
  logger: { warn(obj: object, msg: string): void };
}): VenueParts {
  const { config, venue, metrics, policy } = o;
  const signer = new Signer({ secret: venue.secret, accountId: venue.accountId, headerPrefix: config.venue.header_prefix });
  const limiters = createVenueLimiters(config.venue.limits);
  const restHealth = new RestHealth();
  const rest = new RestClient({
    baseUrl: venue.baseUrl,
    signer,
    limiters,
    timeoutMs: config.venue.request_timeout_ms,
    onRequest: (endpoint, status, seconds) => {
      restHealth.record(status);
      metrics.httpRequests.inc({ endpoint, status: String(status) });
      metrics.httpRequestDuration.observe({ endpoint }, seconds);
    },
    // Any symbol's one-row info: the cheapest public read, once the symbol table is known.
    warmUpPath: () => {
      const first = policy.context.symbols.values().next();
      return first.done ? undefined : `/v1/public/info/${first.value.symbol}`;
    },
    onClaimLane: (kind) => metrics.claimConnections.inc({ kind }),
    onSkippedRows: skippedRowsReporter(metrics.restRowsSkipped, o.logger),
  });
  return { signer, limiters, restHealth, rest };
}
