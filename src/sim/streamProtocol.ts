/**
 * The stream wire format seen from the simulated venue (docs/protocol.md §5): parsing of client frames
 * (untrusted: never throws) and the server's answer frames. Pure: no sockets, no clock.
 */

export type StreamScope = "public" | "private";

/** Topics of the private stream (docs/protocol.md §5); public topics are decided by the venue core. */
export const PRIVATE_TOPICS: ReadonlySet<string> = new Set(["liquidatorliquidations", "position", "executionreport", "balance"]);

/** A request id echoed in answers: a short string or a finite number, else dropped. */
export type FrameId = string | number | undefined;

export type ClientFrame =
  | { kind: "ping"; id: FrameId }
  | { kind: "pong" }
  | { kind: "auth"; id: FrameId; params: unknown }
  | { kind: "subscribe" | "unsubscribe"; id: FrameId; topic: unknown }
  | { kind: "unknown_event"; id: FrameId; event: string }
  | { kind: "invalid"; id: FrameId; detail: string };

// Echoed client text is clipped: an answer must never amplify what a client sent.
const MAX_ECHO = 100;

function clip(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}...` : text;
}

function frameId(value: unknown): FrameId {
  if (typeof value === "string" && value.length <= MAX_ECHO) return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return undefined;
}

/** Parse one inbound text frame. Anything that is not a JSON object with a string `event` is invalid. */
export function parseClientFrame(text: string): ClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "invalid", id: undefined, detail: "invalid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "invalid", id: undefined, detail: "frame is not a JSON object" };
  }
  const frame = value as Record<string, unknown>;
  const id = frameId(frame.id);
  const event = frame.event;
  if (typeof event !== "string") return { kind: "invalid", id, detail: "missing event" };
  switch (event) {
    case "ping":
      return { kind: "ping", id };
    case "pong":
      return { kind: "pong" };
    case "auth":
      return { kind: "auth", id, params: frame.params };
    case "subscribe":
    case "unsubscribe":
      return { kind: event, id, topic: frame.topic };
    default:
      return { kind: "unknown_event", id, event: clip(event) };
  }
}

/** `errorMsg` for a subscribe to a topic this stream does not serve (docs/protocol.md §5). */
export function invalidTopicMessage(topic: unknown): string {
  return typeof topic === "string" ? `invalid topic ${clip(topic)}` : "invalid topic";
}

/** `{"id","event","success":true,"ts"}`; `id` omitted when the request had none. */
export function ackFrame(id: FrameId, event: string, ts: number): string {
  return JSON.stringify(id === undefined ? { event, success: true, ts } : { id, event, success: true, ts });
}

/** `{"id","event","success":false,"errorMsg","ts"}`; `id` omitted when the request had none. */
export function nackFrame(id: FrameId, event: string, errorMsg: string, ts: number): string {
  return JSON.stringify(id === undefined ? { event, success: false, errorMsg, ts } : { id, event, success: false, errorMsg, ts });
}

export function pingFrame(ts: number): string {
  return `{"event":"ping","ts":${ts}}`;
}

export function pongFrame(ts: number): string {
  return `{"event":"pong","ts":${ts}}`;
}

/** A data frame `{"topic","ts","data"}`. Throws only if `data` is not serialisable (the core's bug). */
export function dataFrame(topic: string, ts: number, data: unknown): string {
  return JSON.stringify({ topic, ts, data });
}

/** Paths of docs/protocol.md §1: `/ws/stream/{account_id}` and `/v2/ws/private/stream/{account_id}`. */
const PUBLIC_PATH = /^\/ws\/stream\/([^/]+)$/;
const PRIVATE_PATH = /^\/v2\/ws\/private\/stream\/([^/]+)$/;
const MAX_ACCOUNT_ID = 256;

/** Which stream an upgrade request's URL addresses, or null (→ 404). Query strings are ignored. */
export function matchStreamPath(url: string | undefined): { scope: StreamScope; accountId: string } | null {
  if (url === undefined) return null;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const pub = PUBLIC_PATH.exec(path);
  const priv = pub === null ? PRIVATE_PATH.exec(path) : null;
  const segment = pub?.[1] ?? priv?.[1];
  if (segment === undefined) return null;
  let accountId: string;
  try {
    accountId = decodeURIComponent(segment);
  } catch {
    return null;
  }
  if (accountId.length === 0 || accountId.length > MAX_ACCOUNT_ID) return null;
  return { scope: pub !== null ? "public" : "private", accountId };
}
