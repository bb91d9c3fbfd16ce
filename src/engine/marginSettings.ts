/**
 * The account's own margin settings (docs/protocol.md §10), one immutable snapshot: the leverage set per
 * symbol (`GET /v1/client/leverages`, position rows and pushes), the account-wide `max_leverage` of
 * client info (the leverage of a symbol with no setting of its own), and the account's own
 * `imr_factor` and `max_notional` per symbol (client info). A change makes a new snapshot, so a
 * decision that kept what it computed from one (claimMargin.ts) knows by identity when to recompute.
 *
 * `symbolMargin` resolves a symbol's public parameters into what applies to this account: the
 * account's `imr_factor` where it has one (the public row's otherwise), its leverage, its
 * `max_notional`. The answer is cached per symbol while the public parameters are the same object,
 * so the hot path allocates nothing once warm, and MarginFit's per-line caches (keyed by identity) hold.
 */
import type { MarginParams, SymbolMargin } from "./margin.js";
import type { MarginMode } from "./types.js";

export interface MarginSettingsInit {
  /** Leverage per symbol of cross positions (what a claim lands in). */
  readonly leverage?: ReadonlyMap<string, number> | undefined;
  /** Leverage per symbol of isolated positions, where it differs. */
  readonly isolatedLeverage?: ReadonlyMap<string, number> | undefined;
  /** Client info's `max_leverage`: the leverage of a symbol that has no setting of its own. */
  readonly defaultLeverage?: number | undefined;
  /** Client info's `imr_factor` per symbol: the account's own, preferred to the public row's. */
  readonly imrFactor?: ReadonlyMap<string, number> | undefined;
  /** Client info's `max_notional` per symbol: the largest position (quote) the account may hold. */
  readonly maxNotional?: ReadonlyMap<string, number> | undefined;
}

/**
 * The leverage of a symbol whose setting is unknown while others are known: 1×, i.e. its whole
 * notional. Margin never guesses below what the venue may charge (margin.ts UNKNOWN_MARGIN says why).
 */
const UNKNOWN_LEVERAGE = 1;

const EMPTY = new Map<string, number>();

interface Resolved {
  pub: MarginParams;
  m: SymbolMargin;
}

const validLeverage = (v: number): boolean => Number.isFinite(v) && v > 0;

/** Only the usable entries of an untrusted map (a bad value reads as absent). */
function cleaned(m: ReadonlyMap<string, number> | undefined, ok: (v: number) => boolean): ReadonlyMap<string, number> {
  if (m === undefined || m.size === 0) return EMPTY;
  const out = new Map<string, number>();
  for (const [k, v] of m) if (typeof v === "number" && ok(v)) out.set(k, v);
  return out;
}

export class MarginSettings {
  /** Nothing known: margin cannot be checked (`known` false). */
  static readonly NONE = new MarginSettings({});

  readonly #leverage: ReadonlyMap<string, number>;
  readonly #isolated: ReadonlyMap<string, number>;
  readonly #default: number | undefined;
  readonly #imrFactor: ReadonlyMap<string, number>;
  readonly #maxNotional: ReadonlyMap<string, number>;
  readonly #cross = new Map<string, Resolved>();
  readonly #iso = new Map<string, Resolved>();

  constructor(init: MarginSettingsInit) {
    this.#leverage = cleaned(init.leverage, validLeverage);
    this.#isolated = cleaned(init.isolatedLeverage, validLeverage);
    const d = init.defaultLeverage;
    this.#default = d !== undefined && validLeverage(d) ? d : undefined;
    this.#imrFactor = cleaned(init.imrFactor, (v) => Number.isFinite(v) && v >= 0);
    this.#maxNotional = cleaned(init.maxNotional, (v) => v > 0 && !Number.isNaN(v));
  }

  /** Every symbol at one leverage, nothing else of the account's own (tests, the lab's default). */
  static uniform(leverage: number): MarginSettings {
    return new MarginSettings({ defaultLeverage: leverage });
  }

  /** A copy with these parts replaced (the others kept). */
  with(change: MarginSettingsInit): MarginSettings {
    return new MarginSettings({
      leverage: change.leverage ?? this.#leverage,
      isolatedLeverage: change.isolatedLeverage ?? this.#isolated,
      defaultLeverage: "defaultLeverage" in change ? change.defaultLeverage : this.#default,
      imrFactor: change.imrFactor ?? this.#imrFactor,
      maxNotional: change.maxNotional ?? this.#maxNotional,
    });
  }

  /** Whether any leverage is known: until one is, the account cannot be margin-checked. */
  get known(): boolean {
    return this.#default !== undefined || this.#leverage.size > 0;
  }

  /** Client info's `max_leverage`, when given. */
  get defaultLeverage(): number | undefined {
    return this.#default;
  }

  /** The symbols with a leverage setting of their own (cross). */
  get leverages(): ReadonlyMap<string, number> {
    return this.#leverage;
  }

  /** The symbols with an isolated leverage setting of their own. */
  get isolatedLeverages(): ReadonlyMap<string, number> {
    return this.#isolated;
  }

  get imrFactors(): ReadonlyMap<string, number> {
    return this.#imrFactor;
  }

  get maxNotionals(): ReadonlyMap<string, number> {
    return this.#maxNotional;
  }

  /** The leverage that applies to `symbol` in `mode`: its own setting, else the account-wide one, else undefined. */
  leverageOf(symbol: string, mode: MarginMode = "CROSS"): number | undefined {
    if (mode === "ISOLATED") {
      const iso = this.#isolated.get(symbol);
      if (iso !== undefined) return iso;
    }
    return this.#leverage.get(symbol) ?? this.#default;
  }

  /** `max_notional` of `symbol` (quote), Infinity when the account has none. */
  maxNotionalOf(symbol: string): number {
    return this.#maxNotional.get(symbol) ?? Number.POSITIVE_INFINITY;
  }

  /** `symbol`'s public margin parameters as they apply to this account (see the file's comment). */
  symbolMargin(symbol: string, pub: MarginParams, mode: MarginMode = "CROSS"): SymbolMargin {
    const cache = mode === "ISOLATED" ? this.#iso : this.#cross;
    const hit = cache.get(symbol);
    if (hit !== undefined && hit.pub === pub) return hit.m;
    const m: SymbolMargin = {
      baseImr: pub.baseImr,
      baseMmr: pub.baseMmr,
      imrFactor: this.#imrFactor.get(symbol) ?? pub.imrFactor,
      leverage: this.leverageOf(symbol, mode) ?? UNKNOWN_LEVERAGE,
      maxNotional: this.maxNotionalOf(symbol),
    };
    cache.set(symbol, { pub, m });
    return m;
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { UNKNOWN_LEVERAGE as UNKNOWN_LEVERAGE_FOR_TESTS };
