/**
 * What the recording account really got, read off its own capture: the assignments of its claims and
 * the trades of its unwind orders (capture events `assigned` and `fill`), booked in the daemon's P&L
 * ledger. Two uses: the unwind model's slippage and taker fee are measured from those trades instead
 * of assumed, and the report sets the replay of the recording config beside this account, component
 * by component (docs/policy-lab.md "Reality check").
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { PnlLedger } from "../../engine/pnlLedger.js";
import { BPS } from "../../engine/quantize.js";

/** A net split into what earned or cost it (quote). */
export interface NetComponents {
  /** Liquidator fees of the claims. */
  liquidator_fee: number;
  /** Realized P&L of the unwind trades against the transfer prices (drift and slippage). */
  trading: number;
  /** Trading fees of the unwinds. */
  fees: number;
  /** Positions still held, at the last mark. */
  open: number;
  net: number;
}

export interface RecordedUnwinds {
  /** Trades seen. */
  samples: number;
  /** Notional-weighted distance of the fill prices from the marks their orders were priced on, against us. */
  slippage_bps: number;
  /** Trading fees as a share of the trades' notional. */
  taker_fee_bps: number;
}

export class RecordedAccount {
  readonly #ledger = new PnlLedger({ keepClosedClaims: false });
  claims = 0;
  #trades = 0;
  #notional = 0;
  /** Σ notional × slippage (bps), Σ fee. */
  #slipped = 0;
  #fees = 0;

  /** A capture event (other kinds are ignored). */
  take(ev: CaptureEvent): void {
    if (ev.k === "assigned") {
      this.claims++;
      for (const f of ev.fills) this.#ledger.claim(ev.id, f.symbol, f.qty, f.price, f.fee, ev.at);
    } else if (ev.k === "fill") {
      const notional = Math.abs(ev.qty) * ev.price;
      if (!(notional > 0) || !(ev.mark > 0)) return;
      this.#ledger.fill(ev.symbol, ev.qty, ev.price, ev.fee, ev.at);
      // Selling below the mark, or buying above it, is against us.
      const against = ev.qty < 0 ? ev.mark - ev.price : ev.price - ev.mark;
      this.#trades++;
      this.#notional += notional;
      this.#slipped += notional * ((against / ev.mark) * BPS);
      this.#fees += ev.fee;
    }
  }

  /** The unwind trades' measured costs; undefined when the capture holds none. */
  unwinds(): RecordedUnwinds | undefined {
    if (this.#trades === 0) return undefined;
    return {
      samples: this.#trades,
      slippage_bps: round2(this.#slipped / this.#notional),
      taker_fee_bps: round2((this.#fees / this.#notional) * BPS),
    };
  }

  /** The account's net by component, open positions at `mark`; undefined when no claim was assigned. */
  components(mark: (symbol: string) => number | undefined): NetComponents | undefined {
    if (this.claims === 0) return undefined;
    return componentsOf(this.#ledger, mark);
  }
}

/** A ledger's net by component, open lots at `mark`. */
export function componentsOf(ledger: PnlLedger, mark: (symbol: string) => number | undefined): NetComponents {
  const t = ledger.totals();
  const open = ledger.unrealized(mark);
  return {
    liquidator_fee: round6(t.liquidatorFee),
    trading: round6(t.trading),
    fees: round6(t.fees),
    open: round6(open),
    net: round6(t.net + open),
  };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
