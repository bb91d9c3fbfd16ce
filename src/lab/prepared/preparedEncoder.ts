/**
 * Encodes a capture's lines into prepared blocks (preparedFormat.ts), as a JSONL read parses them.
 * An event gets a structural record only when every object in it has exactly its shape's keys, in
 * order, with the expected value types, and its line names no other kind than its own (a read that
 * wants some kinds picks lines by `"k":"…"` in their text); anything else keeps its line's text, so
 * the decoded events are what JSON.parse gave, key order included.
 *
 * Longer than most files: one encoder per event kind, side by side with the decoder's
 * (preparedDecoder.ts) order, so the two are checked against each other.
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { KEYS, TAG, VAL } from "./preparedFormat.js";

type Obj = Record<string, unknown>;

/**
 * A block is written once its records pass this size: about the events of a gunzipped chunk of a
 * JSONL read, so a batch holds as many events either way (the replay's memory holds a batch).
 */
const BLOCK_BYTES = 64 * 1024;

/**
 * Whether `v` is an object with exactly `keys`, in order. `for…in` allocates nothing; it also lists
 * inherited enumerable keys, which only ever make an object not common (kept as text).
 */
function hasKeys(v: unknown, keys: readonly string[]): v is Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  let i = 0;
  for (const k in v) if (k !== keys[i++]) return false;
  return i === keys.length;
}

const isNum = (v: unknown): v is number => typeof v === "number";
const isStr = (v: unknown): v is string => typeof v === "string";

export class PreparedEncoder {
  #buf = Buffer.allocUnsafe(BLOCK_BYTES * 2);
  #view = viewOf(this.#buf);
  #pos = 0;
  #records = 0;
  readonly #strings = new Map<string, number>();
  #newStrings: string[] = [];
  events = 0;
  badLines = 0;

  /**
   * One line after the header: `ev` its event, undefined when it is not one. True when it got a
   * structural record: then its text names its own kind and no other.
   */
  line(lineNo: number, text: string, ev: CaptureEvent | undefined): boolean {
    if (ev === undefined) {
      this.badLines++;
      this.#end(this.#begin(TAG.bad), this.#f64(lineNo) && this.#text(text));
      return false;
    }
    this.events++;
    const start = this.#pos;
    const strings = this.#newStrings.length;
    if (this.#sole(text, ev.k) && this.#structural(ev as unknown as Obj)) return true;
    // Not common: undo what was written of it, and keep its text.
    this.#pos = start;
    for (const s of this.#newStrings.splice(strings)) this.#strings.delete(s);
    this.#end(this.#begin(TAG.text), this.#text(text));
    return false;
  }

  /** The block of the records so far, when it is big enough (or `force`); undefined when none. */
  block(force = false): Buffer | undefined {
    if (this.#records === 0 || (!force && this.#pos < BLOCK_BYTES)) return undefined;
    const head: Buffer[] = [];
    const count = (n: number) => head.push(varint(n));
    count(this.#newStrings.length);
    for (const s of this.#newStrings) {
      const b = Buffer.from(s, "utf8");
      count(b.length);
      head.push(b);
    }
    count(this.#records);
    const body = Buffer.concat([...head, this.#buf.subarray(0, this.#pos)]);
    const len = Buffer.alloc(4);
    len.writeUInt32LE(body.length);
    this.#pos = 0;
    this.#records = 0;
    this.#newStrings = [];
    return Buffer.concat([len, body]);
  }

  /** Whether `text` names `kind` alone: starts with it and has no other `"k":"`. */
  #sole(text: string, kind: string): boolean {
    const lead = `{"k":"${kind}"`;
    return text.startsWith(lead) && text.indexOf('"k":"', lead.length) === -1;
  }

  #structural(e: Obj): boolean {
    switch (e.k) {
      case "liquidation":
        return hasKeys(e, KEYS.liquidation) && this.#end(this.#begin(TAG.liquidation), this.#f64(e.at as number) && this.#liqs(e.data));
      case "markprices":
        return hasKeys(e, KEYS.markprices) && this.#end(this.#begin(TAG.markprices), this.#f64(e.at as number) && this.#marks(e.data));
      case "open":
        return (
          hasKeys(e, KEYS.open) &&
          this.#end(this.#begin(TAG.open), this.#f64(e.at as number) && this.#num(e.requestedAt) && this.#openRows(e.rows))
        );
      case "futures":
        return (
          hasKeys(e, KEYS.futures) &&
          this.#end(this.#begin(TAG.futures), this.#f64(e.at as number) && this.#num(e.markAt) && this.#futuresRows(e.rows))
        );
      case "claim": {
        const result = hasKeys(e, KEYS.claimWithResult);
        if (!result && !hasKeys(e, KEYS.claim)) return false;
        const r = this.#begin(TAG.claim);
        const head = this.#f64(e.at as number) && this.#num(e.sentAt) && this.#num(e.id) && this.#num(e.code) && this.#value(e.request);
        return this.#end(r, head && this.#byte(result ? 1 : 0) && (!result || this.#value(e.result)));
      }
      case "assigned":
        return (
          hasKeys(e, KEYS.assigned) &&
          this.#end(this.#begin(TAG.assigned), this.#f64(e.at as number) && this.#num(e.id) && this.#fillRows(e.fills))
        );
      case "fill":
        return (
          hasKeys(e, KEYS.fill) &&
          this.#end(
            this.#begin(TAG.fill),
            this.#f64(e.at as number) &&
              this.#str(e.symbol) &&
              this.#num(e.qty) &&
              this.#num(e.price) &&
              this.#num(e.fee) &&
              this.#num(e.mark),
          )
        );
      default:
        return false;
    }
  }

  // The shapes below are loops rather than callbacks: they run for every row of a week's open lists.

  #liqs(v: unknown): boolean {
    if (!this.#length(v)) return false;
    for (const x of v) {
      if (!(hasKeys(x, KEYS.liqEntry) && this.#num(x.liquidationId) && this.#num(x.timestamp) && this.#str(x.type))) return false;
      const ps = x.positionsByPerp;
      if (!this.#length(ps)) return false;
      for (const p of ps) {
        if (!(hasKeys(p, KEYS.offered) && this.#str(p.symbol) && this.#num(p.positionQty) && this.#num(p.liquidatorFee))) return false;
      }
    }
    return true;
  }

  #marks(v: unknown): boolean {
    if (!this.#length(v)) return false;
    for (const x of v) if (!(hasKeys(x, KEYS.mark) && this.#str(x.symbol) && this.#num(x.price))) return false;
    return true;
  }

  #openRows(v: unknown): boolean {
    if (!this.#length(v)) return false;
    for (const x of v) {
      if (!(hasKeys(x, KEYS.openRow) && this.#num(x.liquidation_id) && this.#num(x.timestamp) && this.#str(x.type))) return false;
      const ps = x.positions_by_perp;
      if (!this.#length(ps)) return false;
      for (const p of ps) {
        if (!(hasKeys(p, KEYS.openPos) && this.#str(p.symbol) && this.#num(p.position_qty) && this.#num(p.liquidator_fee))) return false;
      }
    }
    return true;
  }

  #futuresRows(v: unknown): boolean {
    if (!this.#length(v)) return false;
    for (const x of v) {
      if (!(hasKeys(x, KEYS.futuresRow) && this.#str(x.symbol) && this.#num(x.mark_price) && this.#num(x.index_price))) return false;
    }
    return true;
  }

  #fillRows(v: unknown): boolean {
    if (!this.#length(v)) return false;
    for (const x of v) {
      if (!(hasKeys(x, KEYS.fillRow) && this.#str(x.symbol) && this.#num(x.qty) && this.#num(x.price) && this.#num(x.fee))) return false;
    }
    return true;
  }

  /** Any JSON value (a claim's request and result), with its objects' key order. */
  #value(v: unknown): boolean {
    if (v === null) return this.#byte(VAL.null);
    if (v === false) return this.#byte(VAL.false);
    if (v === true) return this.#byte(VAL.true);
    if (typeof v === "number") return this.#byte(VAL.number) && this.#f64(v);
    if (typeof v === "string") return this.#byte(VAL.string) && this.#str(v);
    if (Array.isArray(v)) {
      this.#byte(VAL.array);
      this.#count(v.length);
      for (const x of v) if (!this.#value(x)) return false;
      return true;
    }
    if (typeof v !== "object") return false;
    const keys = Object.keys(v);
    // Assigned on decode, `__proto__` would set a prototype rather than a key: left to JSON.parse.
    if (keys.includes("__proto__")) return false;
    this.#byte(VAL.object);
    this.#count(keys.length);
    for (const k of keys) if (!(this.#str(k) && this.#value((v as Obj)[k]))) return false;
    return true;
  }

  /** Starts a record: its tag and room for its length. */
  #begin(tag: number): number {
    this.#room(5);
    this.#buf[this.#pos] = tag;
    this.#pos += 5;
    return this.#pos;
  }

  /** Ends the record begun at `at` when its fields were all written (`ok`). */
  #end(at: number, ok: boolean): boolean {
    if (!ok) return false;
    this.#view.setUint32(at - 4, this.#pos - at, true);
    this.#records++;
    return true;
  }

  /** Whether `v` is an array, its length written. */
  #length(v: unknown): v is Obj[] {
    if (!Array.isArray(v)) return false;
    this.#count(v.length);
    return true;
  }

  #room(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n));
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
    this.#view = viewOf(next);
  }

  #byte(b: number): true {
    this.#room(1);
    this.#buf[this.#pos++] = b;
    return true;
  }

  #count(n: number): void {
    this.#room(5);
    let v = n;
    while (v >= 0x80) {
      this.#buf[this.#pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#buf[this.#pos++] = v;
  }

  #f64(n: number): true {
    this.#room(8);
    this.#view.setFloat64(this.#pos, n, true);
    this.#pos += 8;
    return true;
  }

  #num(v: unknown): boolean {
    return isNum(v) && this.#f64(v);
  }

  #str(v: unknown): boolean {
    if (!isStr(v)) return false;
    let i = this.#strings.get(v);
    if (i === undefined) {
      // Stored as UTF-8: a lone surrogate (JSON's "\ud800") would not come back; left to JSON.parse.
      if (Buffer.from(v, "utf8").toString("utf8") !== v) return false;
      i = this.#strings.size;
      this.#strings.set(v, i);
      this.#newStrings.push(v);
    }
    this.#count(i);
    return true;
  }

  /** A line's text, inline (not in the string table: it is not repeated). */
  #text(s: string): true {
    const n = Buffer.byteLength(s, "utf8");
    this.#count(n);
    this.#room(n);
    this.#buf.write(s, this.#pos, "utf8");
    this.#pos += n;
    return true;
  }
}

function viewOf(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Unsigned LEB128 (counts and indexes, below 2^31). */
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}
