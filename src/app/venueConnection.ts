/**
 * The venue the process talks to, opened once: the configured live venue, or (the default, so a
 * newcomer's first command works with no account) an embedded simulated venue started in-process
 * on loopback for the life of the process. The only module that may start the simulator, through a
 * dynamic import so a live process never loads it.
 */
import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import { ConfigError } from "../errors.js";

export interface VenueConnection {
  baseUrl: string;
  wsUrl: string;
  wsPrivateUrl: string;
  accountId: string;
  /** The ed25519 secret signing for `accountId` (the simulator's own key in simulator mode). */
  secret: string;
  /** True for the embedded simulated venue: a new venue on every run. */
  simulated: boolean;
  /** User accounts with seeded order history (simulator only; empty for a live venue). */
  orderUsers: string[];
  close(): Promise<void>;
}

export async function connectVenue(loaded: LoadedConfig, logger?: Pick<Logger, "info" | "warn" | "child">): Promise<VenueConnection> {
  const { venue, simulator } = loaded.config;
  if (venue.mode === "live") {
    if (loaded.secret === undefined) throw new ConfigError("LIQUIDATOR_SECRET", "is required when venue.mode is live");
    return {
      baseUrl: venue.base_url,
      wsUrl: venue.ws_url,
      wsPrivateUrl: venue.ws_private_url,
      accountId: venue.account_id,
      secret: loaded.secret,
      simulated: false,
      orderUsers: [],
      close: async () => {},
    };
  }
  const { startSimulator } = await import("../sim/startSimulator.js");
  const { MARGIN_CASCADE_COLLATERAL, MARGIN_CASCADE_SCENARIO, POSITION_MARKET_SCENARIO } = await import("../sim/scenario.js");
  // A market where a cascade can exhaust the account's collateral: margin decides what it is worth.
  const market = simulator.market === "positions" ? POSITION_MARKET_SCENARIO : { ...MARGIN_CASCADE_SCENARIO, liquidationsPerSec: 2 };
  const sim = await startSimulator({
    host: "127.0.0.1",
    port: 0,
    seed: simulator.seed,
    headerPrefix: venue.header_prefix,
    flavor: simulator.flavor,
    scenario: {
      ...market,
      ...(simulator.liquidations_per_second !== null ? { liquidationsPerSec: simulator.liquidations_per_second } : {}),
    },
    collateral: MARGIN_CASCADE_COLLATERAL,
    ...(logger !== undefined ? { logger: logger.child({ component: "simulator" }) as Logger } : {}),
  });
  // A daemon on the embedded simulator must never pass for a live one (also /readyz `venue`,
  // liquidator_venue_simulated): a warning, not an info line, so it shows at every log level.
  logger?.warn(
    { baseUrl: sim.baseUrl, accountId: sim.accountId, seed: sim.seed, flavor: sim.flavor },
    "embedded SIMULATED venue (venue.mode=simulator): nothing real is claimed; set LIQUIDATOR_VENUE=live for a real venue",
  );
  return {
    baseUrl: sim.baseUrl,
    wsUrl: sim.wsUrl,
    wsPrivateUrl: sim.wsPrivateUrl,
    accountId: sim.accountId,
    secret: sim.secret,
    simulated: true,
    orderUsers: [...sim.orderUsers],
    close: () => sim.close(),
  };
}
