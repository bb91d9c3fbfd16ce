/**
 * The prepared form of a capture (docs/policy-lab.md, "Prepared captures"): the capture's events in a
 * binary form that decodes without gunzip or JSON.parse, cached beside the capture as
 * `<capture>.prepared`. It is only a cache: valid for one exact source file (its size, mtime and
 * last bytes) and format version, checked whole (CRC-32 of the body) before any event of it is used.
 *
 * Layout: a fixed header (below), then blocks. A block is `u32 length`, the strings it adds to the
 * string table (`varint count`, each `varint byte length` + UTF-8), `varint record count`, records.
 * A record is a tag byte, `varint length` of the rest (so a read wanting some kinds hops over the
 * others) and the tag's fields: numbers as Float64 LE (bit-exact, -0 kept), strings as
 * `varint index` into the table, arrays as `varint count` + elements.
 */

/** Bumped whenever the layout or a tag's meaning changes: an older file is then rebuilt. */
export const PREPARED_VERSION = 1;
const PREPARED_MAGIC = "LIQPREP\0";

/** Record tags. A tag per common event shape; the rest keep their capture line's text. */
export const TAG = {
  liquidation: 1,
  markprices: 2,
  open: 3,
  futures: 4,
  claim: 5,
  assigned: 6,
  fill: 7,
  /** An event of no common shape (an `info`, an extra field, another key order): its line's text. */
  text: 8,
  /** A line that is not an event (kept, with its line number, for `lenient` and for its error). */
  bad: 9,
} as const;

/** Kinds by tag (the structural tags only). */
export const KIND_OF_TAG: readonly (string | undefined)[] = [
  undefined,
  "liquidation",
  "markprices",
  "open",
  "futures",
  "claim",
  "assigned",
  "fill",
];

/** Generic value tags inside a claim's `request` and `result`. */
export const VAL = { null: 0, false: 1, true: 2, number: 3, string: 4, array: 5, object: 6 } as const;

/** The keys, in order, of each common shape: an object with any other keys or order is not common. */
export const KEYS = {
  liquidation: ["k", "at", "data"],
  liqEntry: ["liquidationId", "timestamp", "type", "positionsByPerp"],
  offered: ["symbol", "positionQty", "liquidatorFee"],
  markprices: ["k", "at", "data"],
  mark: ["symbol", "price"],
  open: ["k", "at", "requestedAt", "rows"],
  openRow: ["liquidation_id", "timestamp", "type", "positions_by_perp"],
  openPos: ["symbol", "position_qty", "liquidator_fee"],
  futures: ["k", "at", "markAt", "rows"],
  futuresRow: ["symbol", "mark_price", "index_price"],
  claim: ["k", "at", "sentAt", "id", "code", "request"],
  claimWithResult: ["k", "at", "sentAt", "id", "code", "request", "result"],
  assigned: ["k", "at", "id", "fills"],
  fillRow: ["symbol", "qty", "price", "fee"],
  fill: ["k", "at", "symbol", "qty", "price", "fee", "mark"],
} as const;

/** What a prepared file is valid for, and what its body must be. */
export interface PreparedHeader {
  version: number;
  /** The reading code's fingerprint (preparedSource.ts): what a JSONL read accepts as an event. */
  reader: number;
  sourceSize: bigint;
  sourceMtimeNs: bigint;
  /** The source's last bytes (a gzip member's CRC and length): a same-size rewrite differs here. */
  sourceTail: Buffer;
  /** Events and bad lines of a full read (a check on the decode, not the stats themselves). */
  events: number;
  badLines: number;
  bodyBytes: bigint;
  bodyCrc: number;
}

export const TAIL_BYTES = 16;
/** magic 8, version 4, reader 4, size 8, mtime 8, tail 16, events 8, bad 8, body 8, crc 4, header crc 4. */
export const HEADER_BYTES = 80;

export function encodeHeader(h: PreparedHeader, crc32: (b: Buffer) => number): Buffer {
  const b = Buffer.alloc(HEADER_BYTES);
  b.write(PREPARED_MAGIC, 0, "latin1");
  b.writeUInt32LE(h.version, 8);
  b.writeUInt32LE(h.reader, 12);
  b.writeBigUInt64LE(h.sourceSize, 16);
  b.writeBigInt64LE(h.sourceMtimeNs, 24);
  h.sourceTail.copy(b, 32, 0, TAIL_BYTES);
  b.writeDoubleLE(h.events, 48);
  b.writeDoubleLE(h.badLines, 56);
  b.writeBigUInt64LE(h.bodyBytes, 64);
  b.writeUInt32LE(h.bodyCrc, 72);
  b.writeUInt32LE(crc32(b.subarray(0, 76)), 76);
  return b;
}

/** The header of `b`, or undefined when it is not one (wrong magic, damaged). */
export function decodeHeader(b: Buffer, crc32: (b: Buffer) => number): PreparedHeader | undefined {
  if (b.length < HEADER_BYTES || b.toString("latin1", 0, 8) !== PREPARED_MAGIC) return undefined;
  if (crc32(b.subarray(0, 76)) !== b.readUInt32LE(76)) return undefined;
  return {
    version: b.readUInt32LE(8),
    reader: b.readUInt32LE(12),
    sourceSize: b.readBigUInt64LE(16),
    sourceMtimeNs: b.readBigInt64LE(24),
    sourceTail: Buffer.from(b.subarray(32, 48)),
    events: b.readDoubleLE(48),
    badLines: b.readDoubleLE(56),
    bodyBytes: b.readBigUInt64LE(64),
    bodyCrc: b.readUInt32LE(72),
  };
}
