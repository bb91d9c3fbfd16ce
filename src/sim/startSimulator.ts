/**
 * Composition of the simulated venue: one node:http server serves the REST API and both stream
 * paths (so `simulate --port N` needs one port), the core's pushes go to the streams, the scenario
 * drives the market, and a generated key is registered for the liquidator's account.
 */
import { randomInt } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { generateKeyPair } from "../venue/signer.js";
import type { SimKeyInfo } from "./accounts.js";
import type { SimFlavor } from "./flavor.js";
import { InsuranceFund } from "./insuranceFund.js";
import type { SimAccountMargin } from "./leverage.js";
import type { OrderFaults } from "./orderFaults.js";
import { Prng } from "./prng.js";
import { PublicQuery, type PublicQueryOptions } from "./publicQuery.js";
import { RestFaults } from "./restFaults.js";
import { type RateLimits, RestServer } from "./restServer.js";
import { Scenario, type ScenarioOptions } from "./scenario.js";
import { SimStreams, type SimStreamsOptions } from "./simStreams.js";
import type { StreamFaults } from "./streamFaults.js";
import type { SymbolSpec } from "./symbols.js";
import { VenueCore } from "./venueCore.js";

export interface StartSimulatorOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Listen address, default 127.0.0.1. */
  host?: string;
  /** Seed of the market, ids and order history; random when omitted (see `handle.seed`). */
  seed?: number;
  scenario?: Partial<ScenarioOptions>;
  /** Auth header prefix, default `service` (docs/protocol.md §2). */
  headerPrefix?: string;
  /** How the REST answers are spelled: `spec` (default) or `real`, the real venue's variants (flavor.ts). */
  flavor?: SimFlavor;
  /** Venue clock in ms (default Date.now). */
  now?: () => number;
  logger?: Logger;
  /** Override or disable (false) the venue's rate limits. */
  rateLimits?: Partial<RateLimits> | false;
  liquidationTtlMs?: number;
  claimProcessingDelayMs?: number;
  /**
   * The liquidator account's collateral (quote), default 1,000,000: generous, so a claim is refused
   * for margin (-1101) only where a test or scenario sets a tight one.
   */
  collateral?: number;
  /** The liquidator account's max leverage (`GET /v1/client/info`), default 10: every symbol's unless set below. */
  maxLeverage?: number;
  /** The liquidator account's margin settings of its own (docs/protocol.md §10; leverage.ts): leverage, imr_factor, max_notional per symbol. */
  accountMargin?: SimAccountMargin;
  /** Trading fee rates, bps (default 5 taker, 2 maker). */
  takerFeeBps?: number;
  makerFeeBps?: number;
  symbols?: readonly SymbolSpec[];
  orderCounts?: readonly number[];
  /** What GET /v1/client/key_info reports of the liquidator's key (default `read,trading`, expiring in 300 days). */
  key?: Partial<SimKeyInfo>;
  streams?: Partial<Pick<SimStreamsOptions, "pingIntervalMs" | "maxFrameBytes" | "deadAfterMs" | "maxBufferedBytes" | "onPublicWrite">>;
  /** `POST /v1/public/query`'s weight pool and cache (publicQuery.ts). */
  query?: PublicQueryOptions;
}

export interface SimulatorHandle {
  baseUrl: string;
  wsUrl: string;
  wsPrivateUrl: string;
  /** The liquidator's account: an admin, with `secret`'s key registered. */
  accountId: string;
  secret: string;
  publicKey: string;
  /** User accounts that have seeded order history. */
  orderUsers: string[];
  seed: number;
  port: number;
  flavor: SimFlavor;
  core: VenueCore;
  rest: RestServer;
  streams: SimStreams;
  scenario: Scenario;
  /** The insurance fund (docs/protocol.md §10): it takes unclaimed liquidations when the scenario says so. */
  fund: InsuranceFund;
  /** Fault controls: REST (any route), streams, and the order side (refusals, lost answers, partial fills, empty books). */
  faults: { rest: RestFaults; streams: StreamFaults; orders: OrderFaults };
  close(): Promise<void>;
}

/** The host clients should dial: a wildcard listen address is reached through loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<SimulatorHandle> {
  const seed = options.seed ?? randomInt(0, 2 ** 31);
  const host = options.host ?? "127.0.0.1";
  const coreOptions: ConstructorParameters<typeof VenueCore>[0] = { seed };
  if (options.now !== undefined) coreOptions.now = options.now;
  if (options.symbols !== undefined) coreOptions.symbols = options.symbols;
  if (options.liquidationTtlMs !== undefined) coreOptions.liquidationTtlMs = options.liquidationTtlMs;
  if (options.claimProcessingDelayMs !== undefined) coreOptions.claimProcessingDelayMs = options.claimProcessingDelayMs;
  if (options.orderCounts !== undefined) coreOptions.orderCounts = options.orderCounts;
  if (options.takerFeeBps !== undefined) coreOptions.takerFeeBps = options.takerFeeBps;
  if (options.makerFeeBps !== undefined) coreOptions.makerFeeBps = options.makerFeeBps;
  const core = new VenueCore(coreOptions);
  const fund = new InsuranceFund(core);
  const scenario = new Scenario(core, options.scenario, options.logger, fund);
  if (scenario.options.insuranceFund) fund.attach();
  const query = new PublicQuery(core, () => scenario.market?.population, options.query);

  // The liquidator: an id derived from the seed, a fresh key (never derived from the seed).
  const ids = new Prng(seed ^ 0x5eed);
  const accountId = `0x${ids.hex(32)}`;
  core.accounts.add({
    accountId,
    address: `0x${ids.hex(20)}`,
    admin: true,
    collateral: options.collateral ?? 1_000_000,
    ...(options.maxLeverage !== undefined ? { maxLeverage: options.maxLeverage } : {}),
    ...options.accountMargin,
  });
  const key = generateKeyPair();
  core.accounts.registerKey(accountId, key.publicKey);
  if (options.key !== undefined) core.accounts.setKeyInfo(accountId, key.publicKey, options.key);

  const restOptions: ConstructorParameters<typeof RestServer>[0] = { core, faults: new RestFaults(core.now), fund, query };
  if (options.headerPrefix !== undefined) restOptions.headerPrefix = options.headerPrefix;
  if (options.logger !== undefined) restOptions.logger = options.logger;
  if (options.rateLimits !== undefined) restOptions.rateLimits = options.rateLimits;
  if (options.flavor !== undefined) restOptions.flavor = options.flavor;
  const rest = new RestServer(restOptions);

  const publicTopics = new Set(["liquidation", "markprices", ...core.symbols.names().map((s) => `${s}@markprice`)]);
  const streams = new SimStreams({
    ...options.streams,
    isKeyAuthorized: (a, k) => core.accounts.isKeyAuthorized(a, k),
    isPublicTopic: (t) => publicTopics.has(t),
    now: core.now,
  });
  const unsubscribe = core.onPush((push) => streams.publish(push));

  const server: Server = createServer(rest.handle);
  streams.attach(server);
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const stop = new AbortController();
  scenario.start(stop.signal);
  options.logger?.info({ port, seed, accountId, flavor: rest.flavor.name }, "simulated venue listening");

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      stop.abort();
      unsubscribe();
      rest.close();
      await streams.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    })();
    return closing;
  };

  const base = `${urlHost(host)}:${port}`;
  return {
    baseUrl: `http://${base}`,
    wsUrl: `ws://${base}`,
    wsPrivateUrl: `ws://${base}`,
    accountId,
    secret: key.secret,
    publicKey: key.publicKey,
    orderUsers: core.orderUsers.map((u) => u.accountId),
    seed,
    port,
    flavor: rest.flavor.name,
    core,
    rest,
    streams,
    scenario,
    fund,
    faults: { rest: rest.faults, streams: streams.faults, orders: core.trading.faults },
    close,
  };
}
