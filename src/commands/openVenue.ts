/**
 * The venue a read command talks to (app/venueConnection.ts: the configured live venue, or an
 * embedded simulated venue for the duration of the command), with a REST client on it.
 */
import { connectVenue } from "../app/venueConnection.js";
import { type LoadedConfig, loadConfig } from "../config/loadConfig.js";
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
  const connection = await connectVenue(loaded);
  if (connection.simulated) io.stderr.write(SIMULATOR_NOTICE);
  try {
    const signer = new Signer({ secret: connection.secret, accountId: connection.accountId, headerPrefix: venue.header_prefix });
    const limiters = createVenueLimiters(venue.limits);
    const rest = new RestClient({ baseUrl: connection.baseUrl, signer, timeoutMs: venue.request_timeout_ms, limiters });
    return {
      rest,
      accountId: connection.accountId,
      orderUsers: connection.orderUsers,
      simulated: connection.simulated,
      close: async () => {
        try {
          await rest.close();
          await limiters.stop();
        } finally {
          await connection.close();
        }
      },
    };
  } catch (err) {
    await connection.close();
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
