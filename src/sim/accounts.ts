/**
 * Accounts of the simulated venue: registered keys (signed REST and private stream auth), admin
 * rights (GET /v1/admin/orders), collateral and positions (the -1101 margin rule of docs/protocol.md §7, §11).
 */
import { formatPublicKey, parsePublicKey } from "../venue/signer.js";
import type { HeldPosition } from "./claimRules.js";

/** The account's max leverage when none is given. */
const DEFAULT_MAX_LEVERAGE = 10;

export interface SimAccount {
  accountId: string;
  address: string;
  admin: boolean;
  collateral: number;
  /**
   * The account's `max_leverage` (GET /v1/client/info): the leverage of a symbol with no setting of
   * its own in `leverage` (docs/protocol.md §10: leverage is set per symbol; IMR is at least 1 / it).
   */
  maxLeverage: number;
  /** Leverage set per symbol (cross), `POST /v1/client/leverages` (leverage.ts). */
  readonly leverage: Map<string, number>;
  /** The account's own `imr_factor` per symbol (client info), preferred to the public row's. */
  readonly imrFactor: Map<string, number>;
  /** The largest position (quote, at mark) the account may hold per symbol (client info `max_notional`). */
  readonly maxNotional: Map<string, number>;
  /** The venue's maximum leverage of a symbol (leverage.ts): `maxLeverage` never applies past it. */
  readonly symbolMax: (symbol: string) => number | undefined;
  readonly keys: Set<string>;
  /** docs/protocol.md §8: what GET /v1/client/key_info says of a key, when set (see `setKeyInfo`). */
  readonly keyInfo: Map<string, SimKeyInfo>;
  readonly positions: Map<string, HeldPosition>;
}

/** A key's scope and expiry as the venue reports them (the simulator reports them; it does not enforce them). */
export interface SimKeyInfo {
  /** Comma-separated, e.g. `read,trading`. */
  scope: string;
  /** ms since the epoch; undefined: a year after the answer. */
  expiresAt: number | undefined;
  /** docs/protocol.md §10: `ip_restriction_status` / `ip_restriction_list` as reported (not enforced); none: absent. */
  ipRestriction?: { status: string; list: string };
}

export const DEFAULT_KEY_SCOPE = "read,trading";

export interface AddAccountOptions {
  accountId: string;
  address?: string;
  admin?: boolean;
  collateral?: number;
  /** Default 10. */
  maxLeverage?: number;
  /** Leverage per symbol; a symbol not named is at `maxLeverage`. */
  leverage?: Readonly<Record<string, number>>;
  /** The account's own imr_factor per symbol. */
  imrFactor?: Readonly<Record<string, number>>;
  /** max_notional per symbol (quote). */
  maxNotional?: Readonly<Record<string, number>>;
}

/** A map of positive finite numbers from a record, or a RangeError naming the bad entry. */
function positiveMap(name: string, r: Readonly<Record<string, number>> | undefined, min = 0): Map<string, number> {
  const m = new Map<string, number>();
  for (const [k, v] of Object.entries(r ?? {})) {
    if (!(Number.isFinite(v) && v >= min)) throw new RangeError(`${name} of ${k} must be a finite number ≥ ${min}`);
    m.set(k, v);
  }
  return m;
}

/** Keys are compared in their canonical `ed25519:` + base58 form, whatever form they were given in. */
function canonicalKey(publicKey: string): string | undefined {
  try {
    return formatPublicKey(parsePublicKey(publicKey));
  } catch {
    return undefined;
  }
}

export class Accounts {
  readonly #byId = new Map<string, SimAccount>();
  readonly #byAddress = new Map<string, SimAccount>();
  readonly #symbolMax: (symbol: string) => number | undefined;

  /** `symbolMax`: the venue's maximum leverage of a symbol (none: no maximum). */
  constructor(symbolMax: (symbol: string) => number | undefined = () => undefined) {
    this.#symbolMax = symbolMax;
  }

  add(options: AddAccountOptions): SimAccount {
    if (options.accountId === "") throw new RangeError("accountId must not be empty");
    if (this.#byId.has(options.accountId)) throw new RangeError(`account ${options.accountId} already exists`);
    const collateral = options.collateral ?? 0;
    if (!(Number.isFinite(collateral) && collateral >= 0)) throw new RangeError("collateral must be a non-negative number");
    const maxLeverage = options.maxLeverage ?? DEFAULT_MAX_LEVERAGE;
    if (!(Number.isFinite(maxLeverage) && maxLeverage >= 1)) throw new RangeError("maxLeverage must be a number ≥ 1");
    const account: SimAccount = {
      accountId: options.accountId,
      address: (options.address ?? "").toLowerCase(),
      admin: options.admin ?? false,
      collateral,
      maxLeverage,
      leverage: positiveMap("leverage", options.leverage, 1),
      imrFactor: positiveMap("imrFactor", options.imrFactor),
      maxNotional: positiveMap("maxNotional", options.maxNotional),
      symbolMax: this.#symbolMax,
      keys: new Set(),
      keyInfo: new Map(),
      positions: new Map(),
    };
    this.#byId.set(account.accountId, account);
    if (account.address !== "") this.#byAddress.set(account.address, account);
    return account;
  }

  get(accountId: string): SimAccount | undefined {
    return this.#byId.get(accountId);
  }

  /** Addresses are hex: matched case-insensitively, as wallets print them in mixed case. */
  byAddress(address: string): SimAccount | undefined {
    return this.#byAddress.get(address.toLowerCase());
  }

  registerKey(accountId: string, publicKey: string): void {
    const account = this.#byId.get(accountId);
    if (account === undefined) throw new RangeError(`unknown account ${accountId}`);
    const key = canonicalKey(publicKey);
    if (key === undefined) throw new RangeError("public key must be ed25519:<base58 of 32 bytes>");
    account.keys.add(key);
  }

  /** Set what key_info reports for a registered key (tests: an expired or a read-only key). */
  setKeyInfo(accountId: string, publicKey: string, info: Partial<SimKeyInfo>): void {
    const account = this.#byId.get(accountId);
    const key = canonicalKey(publicKey);
    if (account === undefined || key === undefined || !account.keys.has(key)) throw new RangeError(`key not registered for ${accountId}`);
    const before = account.keyInfo.get(key) ?? { scope: DEFAULT_KEY_SCOPE, expiresAt: undefined };
    account.keyInfo.set(key, { ...before, ...info });
  }

  revokeKey(accountId: string, publicKey: string): void {
    const key = canonicalKey(publicKey);
    if (key !== undefined) this.#byId.get(accountId)?.keys.delete(key);
  }

  isKeyAuthorized(accountId: string, publicKey: string): boolean {
    const key = canonicalKey(publicKey);
    return key !== undefined && (this.#byId.get(accountId)?.keys.has(key) ?? false);
  }

  setCollateral(accountId: string, amount: number): void {
    const account = this.#byId.get(accountId);
    if (account === undefined) throw new RangeError(`unknown account ${accountId}`);
    if (!(Number.isFinite(amount) && amount >= 0)) throw new RangeError("collateral must be a non-negative number");
    account.collateral = amount;
  }

  all(): SimAccount[] {
    return [...this.#byId.values()];
  }
}
