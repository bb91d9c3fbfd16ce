/**
 * The insurance fund's supply (issue 35, `insurance_fund.enabled`): the feed that offers the open
 * list's `type: "claim"` rows (daemon/feeds/fundFeed.ts, handed to ingest) and the watch that reads
 * the fund itself and says what of it those rows do not offer (daemon/feeds/fundWatch.ts, into
 * `liquidator_insurance_fund_*`). Both absent with the fund off.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import { FundFeed } from "../daemon/feeds/fundFeed.js";
import { FundWatch } from "../daemon/feeds/fundWatch.js";
import type { FundSample } from "../engine/fundHoldings.js";
import type { MarkBook } from "../engine/marks.js";
import { FUND_POLL_RESULTS } from "../observe/fundMetrics.js";
import type { Metrics } from "../observe/metrics.js";
import type { RestClient } from "../venue/rest.js";
import { SupplyApi } from "../venue/supplyApi.js";
import type { DaemonTiming } from "./daemonTiming.js";

const FUND_ENDPOINT = "/v1/public/insurancefund";

export interface FundParts {
  /** What ingest offers the fund's rows through; undefined with the fund off. */
  feed: FundFeed | undefined;
  /** Reads the fund until `signal` aborts (nothing with the fund off); never rejects. */
  run(signal: AbortSignal): Promise<void>;
}

export function fundParts(o: {
  config: Config;
  metrics: Metrics;
  logger: Logger;
  marks: MarkBook;
  rest: RestClient;
  timing: DaemonTiming | undefined;
}): FundParts {
  const { config, metrics, marks } = o;
  if (!config.insurance_fund.enabled) return { feed: undefined, run: async () => undefined };
  const feed = new FundFeed({ route: config.insurance_fund.route, price: (s) => marks.price(s) });
  const supply = new SupplyApi(o.rest);
  let last: FundSample | undefined;
  metrics.setFundSource(() => last);
  for (const result of FUND_POLL_RESULTS) metrics.fundPolls.inc({ result }, 0);
  const watch = new FundWatch({
    read: (opts) => supply.insuranceFund(opts),
    listed: () => feed.listed(),
    mark: (s) => marks.price(s),
    onSample: (sample) => {
      last = sample;
    },
    onResult: (result) => metrics.fundPolls.inc({ result }),
    onBadRows: (n) => metrics.restRowsSkipped.inc({ endpoint: FUND_ENDPOINT }, n),
    logger: o.logger.child({ component: "fund" }),
    ...(o.timing?.fundPollMs !== undefined ? { intervalMs: o.timing.fundPollMs } : {}),
  });
  return { feed, run: (signal) => watch.run(signal) };
}
