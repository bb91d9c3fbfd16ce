/**
 * Decodes prepared blocks (preparedFormat.ts) into the events a JSONL read of the same capture gives:
 * the same objects, keys in the same order, numbers bit for bit; bad lines count or stop the read as
 * they would there, with the same message. Every object handed out is new (a consumer may keep or
 * change it).
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import type { Fill } from "../../engine/types.js";
import { CaptureError } from "../../errors.js";
import type { FuturesRow, OpenLiquidation } from "../../venue/restSchemas.js";
import type { LiquidationEntry, MarkPrice } from "../../venue/wire.js";
import { namesKind, type ReadStats } from "../capture/captureReader.js";
import { hasEventShape } from "../capture/eventShape.js";
import { KIND_OF_TAG, TAG, VAL } from "./preparedFormat.js";

/** What a read asks for: the same options as readCaptureBatches. */
export interface DecodeWants {
  file: string;
  lenient: boolean;
  stats: ReadStats;
  /** The kinds wanted (all when undefined). */
  only?: readonly CaptureEvent["k"][] | undefined;
}

type Obj = Record<string, unknown>;

export class PreparedDecoder {
  readonly #table: string[] = [];
  readonly #wants: DecodeWants;
  readonly #kinds: ReadonlySet<string> | undefined;
  #b: Buffer = Buffer.alloc(0);
  #view: DataView = new DataView(new ArrayBuffer(0));
  #pos = 0;

  constructor(wants: DecodeWants) {
    this.#wants = wants;
    this.#kinds = wants.only === undefined ? undefined : new Set(wants.only);
  }

  /** The events of one block (its bytes after the length). */
  block(b: Buffer): CaptureEvent[] {
    this.#b = b;
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.#pos = 0;
    const added = this.#count();
    for (let i = 0; i < added; i++) {
      const n = this.#count();
      this.#table.push(b.toString("utf8", this.#pos, this.#pos + n));
      this.#pos += n;
    }
    const records = this.#count();
    const out: CaptureEvent[] = [];
    for (let i = 0; i < records; i++) {
      const tag = b[this.#pos] as number;
      const end = this.#pos + 5 + this.#view.getUint32(this.#pos + 1, true);
      this.#pos += 5;
      if (tag < TAG.text && this.#kinds !== undefined && !this.#kinds.has(KIND_OF_TAG[tag] as string)) {
        this.#pos = end;
        continue;
      }
      const ev = this.#record(tag);
      if (this.#pos !== end) throw new Error(`prepared capture of ${this.#wants.file}: a record does not end where its length says`);
      if (ev !== undefined) {
        this.#wants.stats.events++;
        out.push(ev);
      }
    }
    if (this.#pos !== b.length) throw new Error(`prepared capture of ${this.#wants.file}: a block does not end where its length says`);
    return out;
  }

  #record(tag: number): CaptureEvent | undefined {
    switch (tag) {
      case TAG.liquidation:
        return { k: "liquidation", at: this.#f64(), data: this.#liqs() };
      case TAG.markprices:
        return { k: "markprices", at: this.#f64(), data: this.#marks() };
      case TAG.open:
        return { k: "open", at: this.#f64(), requestedAt: this.#f64(), rows: this.#openRows() };
      case TAG.futures:
        return { k: "futures", at: this.#f64(), markAt: this.#f64(), rows: this.#futuresRows() };
      case TAG.claim:
        return this.#claim();
      case TAG.assigned:
        return { k: "assigned", at: this.#f64(), id: this.#f64(), fills: this.#fills() };
      case TAG.fill:
        return {
          k: "fill",
          at: this.#f64(),
          symbol: this.#str(),
          qty: this.#f64(),
          price: this.#f64(),
          fee: this.#f64(),
          mark: this.#f64(),
        };
      case TAG.text:
        return this.#textEvent();
      case TAG.bad:
        return this.#bad();
      default:
        throw new Error(`prepared capture of ${this.#wants.file}: unknown record tag ${tag}`);
    }
  }

  #claim(): CaptureEvent {
    const at = this.#f64();
    const sentAt = this.#f64();
    const id = this.#f64();
    const code = this.#f64();
    const request = this.#value();
    if (this.#b[this.#pos++] === 0) return { k: "claim", at, sentAt, id, code, request } as CaptureEvent;
    return { k: "claim", at, sentAt, id, code, request, result: this.#value() } as CaptureEvent;
  }

  #liqs(): LiquidationEntry[] {
    const n = this.#count();
    const out = new Array<LiquidationEntry>(n);
    for (let i = 0; i < n; i++) {
      const liquidationId = this.#f64();
      const timestamp = this.#f64();
      const type = this.#str();
      const m = this.#count();
      const positionsByPerp = new Array(m);
      for (let j = 0; j < m; j++) positionsByPerp[j] = { symbol: this.#str(), positionQty: this.#f64(), liquidatorFee: this.#f64() };
      out[i] = { liquidationId, timestamp, type, positionsByPerp };
    }
    return out;
  }

  #marks(): MarkPrice[] {
    const n = this.#count();
    const out = new Array<MarkPrice>(n);
    for (let i = 0; i < n; i++) out[i] = { symbol: this.#str(), price: this.#f64() };
    return out;
  }

  #openRows(): OpenLiquidation[] {
    const n = this.#count();
    const out = new Array<OpenLiquidation>(n);
    for (let i = 0; i < n; i++) {
      const liquidation_id = this.#f64();
      const timestamp = this.#f64();
      const type = this.#str();
      const m = this.#count();
      const positions_by_perp = new Array(m);
      for (let j = 0; j < m; j++) positions_by_perp[j] = { symbol: this.#str(), position_qty: this.#f64(), liquidator_fee: this.#f64() };
      out[i] = { liquidation_id, timestamp, type, positions_by_perp };
    }
    return out;
  }

  #futuresRows(): FuturesRow[] {
    const n = this.#count();
    const out = new Array<FuturesRow>(n);
    for (let i = 0; i < n; i++) out[i] = { symbol: this.#str(), mark_price: this.#f64(), index_price: this.#f64() };
    return out;
  }

  #fills(): Fill[] {
    const n = this.#count();
    const out = new Array<Fill>(n);
    for (let i = 0; i < n; i++) out[i] = { symbol: this.#str(), qty: this.#f64(), price: this.#f64(), fee: this.#f64() };
    return out;
  }

  #value(): unknown {
    const tag = this.#b[this.#pos++];
    switch (tag) {
      case VAL.null:
        return null;
      case VAL.false:
        return false;
      case VAL.true:
        return true;
      case VAL.number:
        return this.#f64();
      case VAL.string:
        return this.#str();
      case VAL.array: {
        const n = this.#count();
        const out = new Array(n);
        for (let i = 0; i < n; i++) out[i] = this.#value();
        return out;
      }
      case VAL.object: {
        const n = this.#count();
        const out: Obj = {};
        for (let i = 0; i < n; i++) {
          const k = this.#str();
          out[k] = this.#value();
        }
        return out;
      }
      default:
        throw new Error(`prepared capture of ${this.#wants.file}: unknown value tag ${tag}`);
    }
  }

  /** Whether a line's text is one a read of `only` kinds looks at (captureReader.ts's test). */
  #wanted(text: string): boolean {
    return this.#kinds === undefined || namesKind(text, this.#kinds);
  }

  #textEvent(): CaptureEvent | undefined {
    const text = this.#text();
    if (!this.#wanted(text)) return undefined;
    const v = JSON.parse(text) as Obj;
    // It was an event when prepared; checked again as the JSONL read would, so nothing unchecked passes.
    if (!hasEventShape(v)) throw new Error(`prepared capture of ${this.#wants.file}: a kept line is not an event`);
    return v as CaptureEvent;
  }

  #bad(): undefined {
    const lineNo = this.#f64();
    const text = this.#text();
    if (!this.#wanted(text)) return undefined;
    if (!this.#wants.lenient) {
      throw new CaptureError(
        `capture ${this.#wants.file} line ${lineNo}: not a capture event (garbage or a cut line); --lenient skips such lines`,
      );
    }
    this.#wants.stats.badLines++;
    return undefined;
  }

  #text(): string {
    const n = this.#count();
    const s = this.#b.toString("utf8", this.#pos, this.#pos + n);
    this.#pos += n;
    return s;
  }

  #f64(): number {
    const v = this.#view.getFloat64(this.#pos, true);
    this.#pos += 8;
    return v;
  }

  #str(): string {
    const s = this.#table[this.#count()];
    if (s === undefined) throw new Error(`prepared capture of ${this.#wants.file}: a string index out of the table`);
    return s;
  }

  #count(): number {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = this.#b[this.#pos++] as number;
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v >>> 0;
      shift += 7;
    }
  }
}
