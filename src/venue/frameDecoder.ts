/**
 * One stream frame in, one verdict out (docs/protocol.md §5): a control event (ping, pong,
 * ack) for the connection to act on, validated data for the consumer, or a bad frame with its reason.
 * Pure: no socket, no clock. Hot path: one JSON.parse, a Map lookup and a switch on the topic kind,
 * a hand-written validator (wire.ts).
 */
import {
  type BadMessageReason,
  frameTimestamp,
  isSymbol,
  parseLiquidations,
  parseLiquidatorLiquidation,
  parseMarkPrice,
  parseMarkPrices,
  parsePositions,
  type StreamData,
  type TopicRoute,
} from "./wire.js";
import { parseBalance, parseExecutionReport } from "./wireOrders.js";

export type DecodedFrame =
  /** A control frame: `event` is its `event` field, `frame` the parsed object. */
  | { kind: "event"; event: string; frame: Record<string, unknown> }
  /** Validated data; `dropped` rows of an array payload were invalid and left out. */
  | { kind: "data"; data: StreamData; dropped: number }
  /** Data of which every row was invalid: nothing to deliver, `dropped` rows counted. */
  | { kind: "empty"; dropped: number }
  | { kind: "bad"; reason: BadMessageReason };

const bad = (reason: BadMessageReason): DecodedFrame => ({ kind: "bad", reason });

export function decodeFrame(raw: Buffer, isBinary: boolean, routes: ReadonlyMap<string, TopicRoute>): DecodedFrame {
  if (isBinary) return bad("not_json");
  let msg: unknown;
  try {
    msg = JSON.parse(raw.toString("utf8"));
  } catch {
    return bad("not_json");
  }
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return bad("not_object");
  const f = msg as Record<string, unknown>;
  const event = f.event;
  if (typeof event === "string") return { kind: "event", event, frame: f };
  const topic = f.topic;
  if (typeof topic !== "string") return bad("no_topic");
  const route = routes.get(topic);
  if (route === undefined) return bad("unknown_topic");
  const ts = frameTimestamp(f.ts);
  if (ts === null) return bad("bad_payload");
  const data = f.data;
  switch (route.kind) {
    case "liquidation": {
      const r = parseLiquidations(data);
      if (r === undefined) return bad("bad_payload");
      // An all-bad array delivers nothing; an empty one from the venue is delivered as is.
      if (r.items.length === 0 && r.dropped > 0) return { kind: "empty", dropped: r.dropped };
      return { kind: "data", data: ["liquidation", r.items, ts], dropped: r.dropped };
    }
    case "markprices": {
      const r = parseMarkPrices(data);
      if (r === undefined) return bad("bad_payload");
      if (r.items.length === 0 && r.dropped > 0) return { kind: "empty", dropped: r.dropped };
      return { kind: "data", data: ["markprices", r.items, ts], dropped: r.dropped };
    }
    case "markprice": {
      const m = parseMarkPrice(data, route.symbol);
      return m === undefined ? bad("bad_payload") : { kind: "data", data: ["markprice", m, ts], dropped: 0 };
    }
    case "liquidatorliquidations": {
      const l = parseLiquidatorLiquidation(data);
      return l === undefined ? bad("bad_payload") : { kind: "data", data: ["liquidatorliquidations", l, ts], dropped: 0 };
    }
    case "position": {
      const p = parsePositions(data);
      return p === undefined ? bad("bad_payload") : { kind: "data", data: ["position", p, ts], dropped: 0 };
    }
    case "executionreport": {
      const r = parseExecutionReport(data, isSymbol);
      return r === undefined ? bad("bad_payload") : { kind: "data", data: ["executionreport", r, ts], dropped: 0 };
    }
    case "balance": {
      const b = parseBalance(data);
      return b === undefined ? bad("bad_payload") : { kind: "data", data: ["balance", b, ts], dropped: 0 };
    }
  }
}
