/**
 * Bad frames the simulated venue can push to test a client's validation (docs/architecture.md rule 3: a bad
 * frame is counted and dropped, never a crash, never a claim). Each kind has several variants; frame
 * `i` of a batch takes variant `i mod count`. Pure: the frames are built once per fault call and the
 * same strings go to every socket.
 */
import type { StreamScope } from "./streamProtocol.js";

export const MALFORMED_KINDS = [
  "invalid_json", // not JSON at all, or truncated JSON
  "wrong_shape", // valid JSON that is not a data frame, or data of the wrong container type
  "unknown_topic", // a well-formed frame on a topic nobody subscribed to
  "wrong_types", // the right topic and fields, with values of the wrong types
  "nan_strings", // numbers written as "NaN" / "Infinity" strings, and 1e400 (parses to Infinity)
  "oversized", // one valid frame of about 2 MiB
] as const;
export type MalformedKind = (typeof MALFORMED_KINDS)[number];

/** Size of the `oversized` frame: above any sane client's inbound frame limit. */
const OVERSIZED_FRAME_BYTES = 2 * 1024 * 1024;

// Ids far from the simulator's real ones: a client that wrongly accepts a bad frame must not be able
// to confuse it with a real liquidation.
const BAD_ID = 990_000_001;

function publicVariants(kind: MalformedKind, ts: number): string[] {
  switch (kind) {
    case "invalid_json":
      return [
        "this is not json",
        `{"topic":"liquidation","ts":${ts},"data":[{"liquidationId":`,
        `{"topic":"markprices","ts":${ts},"data":[{"symbol":"PERP_BTC_USDC","price":1,}]}`,
        "\u0000\u0001\u0002",
      ];
    case "wrong_shape":
      return [
        "[]",
        "null",
        '"liquidation"',
        `{"topic":"liquidation","ts":${ts}}`,
        `{"topic":"liquidation","ts":${ts},"data":{"liquidationId":${BAD_ID}}}`,
        `{"topic":"markprices","ts":${ts},"data":{"symbol":"PERP_BTC_USDC","price":1}}`,
        `{"ts":${ts},"data":[]}`,
      ];
    case "unknown_topic":
      return [
        `{"topic":"nosuchtopic","ts":${ts},"data":[]}`,
        `{"topic":"liquidations","ts":${ts},"data":[]}`,
        `{"topic":"PERP_NOPE_USDC@markprice","ts":${ts},"data":{"symbol":"PERP_NOPE_USDC","price":1}}`,
      ];
    case "wrong_types":
      return [
        `{"topic":"liquidation","ts":${ts},"data":[{"liquidationId":{"x":1},"timestamp":${ts},"type":"liquidated","positionsByPerp":[]}]}`,
        `{"topic":"liquidation","ts":${ts},"data":[{"liquidationId":${BAD_ID},"timestamp":"yesterday","type":7,"positionsByPerp":"PERP_BTC_USDC"}]}`,
        `{"topic":"liquidation","ts":${ts},"data":[{"liquidationId":${BAD_ID},"timestamp":${ts},"type":"liquidated","positionsByPerp":[{"symbol":42,"positionQty":true,"liquidatorFee":null}]}]}`,
        `{"topic":"markprices","ts":${ts},"data":[{"symbol":"PERP_BTC_USDC","price":"abc"},{"symbol":null,"price":1}]}`,
        `{"topic":"liquidation","ts":"${ts}","data":[]}`,
      ];
    case "nan_strings":
      return [
        `{"topic":"liquidation","ts":${ts},"data":[{"liquidationId":${BAD_ID},"timestamp":${ts},"type":"liquidated","positionsByPerp":[{"symbol":"PERP_BTC_USDC","positionQty":"NaN","liquidatorFee":0.006}]}]}`,
        `{"topic":"liquidation","ts":${ts},"data":[{"liquidationId":${BAD_ID},"timestamp":${ts},"type":"liquidated","positionsByPerp":[{"symbol":"PERP_BTC_USDC","positionQty":1e400,"liquidatorFee":"Infinity"}]}]}`,
        `{"topic":"markprices","ts":${ts},"data":[{"symbol":"PERP_BTC_USDC","price":"NaN"},{"symbol":"PERP_ETH_USDC","price":"-Infinity"}]}`,
        `{"topic":"markprices","ts":${ts},"data":[{"symbol":"PERP_BTC_USDC","price":1e400},{"symbol":"PERP_ETH_USDC","price":-1}]}`,
      ];
    case "oversized":
      return [oversizedFrame("liquidation", ts)];
  }
}

function privateVariants(kind: MalformedKind, ts: number): string[] {
  switch (kind) {
    case "invalid_json":
      return ["}{", `{"topic":"liquidatorliquidations","ts":${ts},"data":{"liquidationId":`];
    case "wrong_shape":
      return [
        "[]",
        `{"topic":"liquidatorliquidations","ts":${ts},"data":[]}`,
        `{"topic":"position","ts":${ts},"data":{"positions":{}}}`,
        `{"topic":"position","ts":${ts}}`,
      ];
    case "unknown_topic":
      return [`{"topic":"executionreport","ts":${ts},"data":{}}`, `{"topic":"balance","ts":${ts},"data":[]}`];
    case "wrong_types":
      return [
        `{"topic":"liquidatorliquidations","ts":${ts},"data":{"liquidationId":"abc","timestamp":${ts},"type":"claim","assigned":"yes","positionsByPerp":[{"symbol":1,"positionQty":"x","costPositionTransfer":null,"transferPrice":{},"liquidatorFee":[],"absLiquidatorFee":false}]}}`,
        `{"topic":"position","ts":${ts},"data":{"positions":[{"symbol":"PERP_BTC_USDC","positionQty":"1.5x","averageOpenPrice":null,"markPrice":"abc"}]}}`,
      ];
    case "nan_strings":
      return [
        `{"topic":"liquidatorliquidations","ts":${ts},"data":{"liquidationId":${BAD_ID},"timestamp":${ts},"type":"claim","assigned":true,"positionsByPerp":[{"symbol":"PERP_BTC_USDC","positionQty":"NaN","costPositionTransfer":"Infinity","transferPrice":1e400,"liquidatorFee":0.006,"absLiquidatorFee":"-Infinity"}]}}`,
        `{"topic":"position","ts":${ts},"data":{"positions":[{"symbol":"PERP_BTC_USDC","positionQty":"NaN","averageOpenPrice":1e400,"markPrice":"Infinity"}]}}`,
      ];
    case "oversized":
      return [oversizedFrame("position", ts)];
  }
}

/** A syntactically valid data frame of about OVERSIZED_FRAME_BYTES (a padding field inside data). */
function oversizedFrame(topic: string, ts: number): string {
  const head = `{"topic":"${topic}","ts":${ts},"data":{"padding":"`;
  const tail = `"}}`;
  return head + "x".repeat(OVERSIZED_FRAME_BYTES - head.length - tail.length) + tail;
}

/**
 * `n` bad frames for a stream scope. `kind` undefined cycles through every kind except `oversized`
 * (which must be asked for: 2 MiB per frame per socket adds up).
 */
export function malformedFrames(n: number, scope: StreamScope, kind: MalformedKind | undefined, ts: number): string[] {
  const variants = scope === "public" ? publicVariants : privateVariants;
  const kinds: readonly MalformedKind[] = kind === undefined ? MALFORMED_KINDS.filter((k) => k !== "oversized") : [kind];
  const perKind = new Map<MalformedKind, string[]>(kinds.map((k) => [k, variants(k, ts)]));
  const frames: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = kinds[i % kinds.length] as MalformedKind;
    const list = perKind.get(k) as string[];
    frames.push(list[Math.floor(i / kinds.length) % list.length] as string);
  }
  return frames;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { OVERSIZED_FRAME_BYTES as OVERSIZED_FRAME_BYTES_FOR_TESTS };
