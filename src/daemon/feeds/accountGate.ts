/**
 * The margin check fails closed (issue #33): until the account can be margin-checked — its
 * collateral known (the first positions read, or a `balance` push) and a leverage known (the
 * leverages read, a position's, or client info's) — nothing is claimed: `claiming_paused{reason=
 * "account"}` and `/readyz` say why. A claim sized without the account would be the venue's -1101
 * at best and a position past the operator's margin limit at worst.
 */
import type { PauseReason } from "../../engine/pauseReasons.js";

export interface AccountGateOptions {
  /** The account as the decision reads it (engine/accountBook.ts). */
  account: { readonly holding: number | undefined; readonly settings: { readonly known: boolean } };
  claimer: { setPaused(reason: PauseReason, on: boolean): void };
  logger: { info(obj: object, msg: string): void };
}

export class AccountGate {
  readonly #o: AccountGateOptions;
  #open = false;

  constructor(o: AccountGateOptions) {
    this.#o = o;
    o.claimer.setPaused("account", true);
  }

  /** After anything that tells the account (positions, balance, leverages, client info). */
  check(): void {
    const { account, claimer, logger } = this.#o;
    const known = account.holding !== undefined && account.settings.known;
    if (known === this.#open) return;
    this.#open = known;
    claimer.setPaused("account", !known);
    if (known)
      logger.info({ holding: account.holding }, "account known (collateral and leverage): margin can be checked, claiming may start");
  }
}
