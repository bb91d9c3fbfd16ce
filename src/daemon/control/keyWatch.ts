/**
 * The key's scope and expiry (docs/protocol.md §8), read at start and every hour: a key that is
 * expired, removed or lacks the `trading` scope cannot claim or unwind, so the daemon refuses to
 * start on it (ConfigError: exit 78, naming the problem) rather than fail with -1002 on every claim.
 * The expiry goes to `liquidator_key_expiry_timestamp_seconds` (the alert fires 14 days before).
 * A venue without the route, or an answer that does not come, is logged and never stops the daemon.
 */
import { ConfigError } from "../../errors.js";
import { sleep } from "../../sleep.js";
import { assessKey, isMissingRoute, type KeyInfoRow } from "../../venue/keyInfo.js";

const KEY_CHECK_INTERVAL_MS = 3_600_000;

interface KeyWatchLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface KeyWatchOptions {
  read: (signal: AbortSignal) => Promise<KeyInfoRow[]>;
  publicKey: string;
  /** Sets the expiry gauge (seconds since the epoch). */
  onExpiry: (seconds: number) => void;
  logger: KeyWatchLogger;
  now?: () => number;
  intervalMs?: number;
}

export class KeyWatch {
  readonly #options: KeyWatchOptions;
  readonly #now: () => number;

  constructor(options: KeyWatchOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** One reading. Throws ConfigError when the key cannot claim or unwind; anything else is logged. */
  async check(signal: AbortSignal): Promise<void> {
    let rows: KeyInfoRow[];
    try {
      rows = await this.#options.read(signal);
    } catch (err) {
      if (signal.aborted) return;
      if (isMissingRoute(err))
        this.#options.logger.warn({}, "the venue has no GET /v1/client/key_info: the key's expiry and scope are not checked");
      else this.#options.logger.warn({ err: (err as Error).message }, "the key's expiry and scope could not be read; next try in an hour");
      return;
    }
    const a = assessKey(rows, this.#options.publicKey, this.#now());
    if (a.row?.expiresAt !== undefined) this.#options.onExpiry(a.row.expiresAt / 1000);
    const detail = { publicKey: this.#options.publicKey, scope: a.row?.scopes.join(","), expiresAt: a.row?.expiresAt };
    if (a.verdict === "fail") throw new ConfigError("LIQUIDATOR_SECRET", `the venue says this key cannot claim or unwind: ${a.problem}`);
    if (a.verdict === "warn") this.#options.logger.warn({ ...detail, problem: a.problem }, "key check: act before the key stops working");
    else this.#options.logger.info(detail, "key checked: scope and expiry fit");
  }

  /** Hourly after the start's check, until `signal` aborts; a failing key is logged (the daemon runs on). */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(this.#options.intervalMs ?? KEY_CHECK_INTERVAL_MS, signal);
      if (signal.aborted) return;
      try {
        await this.check(signal);
      } catch (err) {
        this.#options.logger.error({ err: (err as Error).message }, "the key can no longer claim or unwind: replace it (docs/runbook.md)");
      }
    }
  }
}
