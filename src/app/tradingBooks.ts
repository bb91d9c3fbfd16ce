/**
 * The daemon's in-memory books: marks, exposure, the open liquidations, the account's collateral,
 * the policy over them, and the held positions. Every other part reads or feeds these.
 */
import type { Config } from "../config/schema.js";
import { PolicyState } from "../daemon/claim/policyState.js";
import { OpenBook } from "../daemon/feeds/openBook.js";
import { AccountBook } from "../engine/accountBook.js";
import { Exposure } from "../engine/exposure.js";
import { MarkBook } from "../engine/marks.js";
import { PositionBook } from "../engine/positionBook.js";

export interface TradingBooks {
  marks: MarkBook;
  exposure: Exposure;
  book: OpenBook;
  /** The account's collateral and margin inputs (docs/protocol.md §7), fed by ingest. */
  account: AccountBook;
  policy: PolicyState;
  positions: PositionBook;
}

export function tradingBooks(policyConfig: Config["policy"], unwind?: Config["unwind"]): TradingBooks {
  const marks = new MarkBook();
  const exposure = new Exposure();
  const book = new OpenBook();
  // The decision checks the margin limits against the account; the metrics read it at scrape.
  const account = new AccountBook();
  const policy = new PolicyState(policyConfig, marks, exposure, account, unwind);
  const positions = new PositionBook(exposure);
  return { marks, exposure, book, account, policy, positions };
}
