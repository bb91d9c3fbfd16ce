/** One push the venue makes on its streams; `data` is already wire-shaped (camelCase, docs/protocol.md §5). */
export type SimPush =
  | { scope: "public"; topic: string; data: unknown } // "liquidation" | "markprices" | `${symbol}@markprice`
  | { scope: "private"; accountId: string; topic: string; data: unknown }; // "liquidatorliquidations" | "position"
export type SimPushListener = (push: SimPush) => void;
