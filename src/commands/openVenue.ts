/**
 * The venue a read command talks to: the configured live venue, or (the default, so a newcomer's
 * first `liquidator epochs` works with no account) an embedded simulated venue started for the
 * duration of the command.
 */
import { type LoadedConfig, loadConfig } from "../config/loadConfig.js";
import { ConfigError } from "../errors.js";
import { createVenueLimiters } from "../venue/limiters.js";
import { RestClient } from "../venue/rest.js";
import { Signer } from "../venue/signer.js";
import type { CommandIO } from "./command.js";

export interface OpenVenue {
  rest: RestClient;
  /** The account the signed requests act as. */
  accountId: string;
  /** User accounts with seeded order history (simulator only; empty for a live venue). */
  orderUsers: string[];
  simulated: boolean;
  close(): Promise<void>;
}

const SIMULATOR_NOTICE =
  "liquidator: using the embedded simulated venue (venue.mode: simulator); to query a real venue set " +
  "LIQUIDATOR_VENUE=live, LIQUIDATOR_BASE_URL, LIQUIDATOR_ACCOUNT_ID and LIQUIDATOR_SECRET (or venue.* in --config FILE)\n";

export async function openVenue(loaded: LoadedConfig, io: CommandIO): Promise<OpenVenue> {
  const { venue } = loaded.config;
  if (venue.mode === "live") {
    if (loaded.secret === undefined) throw new ConfigError("LIQUIDATOR_SECRET", "is required when venue.mode is live");
    const signer = new Signer({ secret: loaded.secret, accountId: venue.account_id, headerPrefix: venue.header_prefix });
    const limiters = createVenueLimiters(venue.limits);
    const rest = new RestClient({ baseUrl: venue.base_url, signer, timeoutMs: venue.request_timeout_ms, limiters });
    return {
      rest,
      accountId: venue.account_id,
      orderUsers: [],
      simulated: false,
      close: async () => {
        await rest.close();
        await limiters.stop();
      },
    };
  }

  const { startSimulator } = await import("../sim/startSimulator.js");
  const sim = await startSimulator({ host: "127.0.0.1", port: 0, seed: loaded.config.simulator.seed, headerPrefix: venue.header_prefix });
  io.stderr.write(SIMULATOR_NOTICE);
  try {
    // The simulator registers its own key for its own account.
    const signer = new Signer({ secret: sim.secret, accountId: sim.accountId, headerPrefix: venue.header_prefix });
    const limiters = createVenueLimiters(venue.limits);
    const rest = new RestClient({ baseUrl: sim.baseUrl, signer, timeoutMs: venue.request_timeout_ms, limiters });
    return {
      rest,
      accountId: sim.accountId,
      orderUsers: [...sim.orderUsers],
      simulated: true,
      close: async () => {
        try {
          await rest.close();
          await limiters.stop();
        } finally {
          await sim.close();
        }
      },
    };
  } catch (err) {
    await sim.close();
    throw err;
  }
}

/** Loads the config (`--config` or LIQUIDATOR_CONFIG), opens the venue, runs `fn`, always closes. */
export async function withVenue<T>(
  configPath: string | undefined,
  io: CommandIO,
  fn: (venue: OpenVenue, loaded: LoadedConfig) => Promise<T>,
): Promise<T> {
  const loaded = await loadConfig({ path: configPath ?? io.env.LIQUIDATOR_CONFIG, env: io.env });
  const venue = await openVenue(loaded, io);
  try {
    return await fn(venue, loaded);
  } finally {
    await venue.close();
  }
}
