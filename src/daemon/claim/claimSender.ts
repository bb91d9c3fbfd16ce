/**
 * The single point where a claim leaves the process. `dry_run` is enforced here and nowhere else
 * (docs/architecture.md rule 4): everything before this point — decision, ranking, limiter, journal intent —
 * runs the same in a dry run, so a dry run shows exactly what a live run would have sent.
 */
import type { LeastRatios } from "../../engine/leastRatio.js";
import { VenueError } from "../../venue/errors.js";
import type { ClaimRequest, ClaimResult } from "../../venue/restSchemas.js";
import type { FundClaimRequest } from "../../venue/supplySchemas.js";

/** The narrow transport a sender needs (RestClient satisfies it). */
export interface ClaimTransport {
  claimLiquidation(body: ClaimRequest, opts?: { signal?: AbortSignal; permitHeld?: boolean }): Promise<ClaimResult>;
}

/**
 * The insurance fund's claim endpoint (SupplyApi satisfies it), on the fund's own `fund_claims`
 * limiter (5/s, docs/protocol.md §10), apart from the liquidation claims' lane: the claimer's fund
 * pump holds its permit (`permitHeld`); without it the endpoint takes one itself.
 */
export interface FundClaimTransport {
  claimInsuranceFund(body: FundClaimRequest, opts?: { signal?: AbortSignal; permitHeld?: boolean }): Promise<ClaimResult>;
}

export type SendOutcome = { sent: true; result: ClaimResult } | { sent: false; dryRun: true };

export class ClaimSender {
  readonly #transport: ClaimTransport;
  #dryRun: boolean;
  readonly #leastRatios: LeastRatios | undefined;
  readonly #fund: FundClaimTransport | undefined;

  /**
   * `leastRatios`: where a -1201's least ratio is kept for the decision made once more
   * (engine/leastRatio.ts; PolicyState reads it); none: every -1201 is final.
   */
  constructor(transport: ClaimTransport, dryRun: boolean, leastRatios?: LeastRatios, fund?: FundClaimTransport) {
    this.#transport = transport;
    this.#fund = fund;
    this.#dryRun = dryRun;
    this.#leastRatios = leastRatios;
  }

  get dryRun(): boolean {
    return this.#dryRun;
  }

  /** SIGHUP may switch dry run on or off; the switch takes effect at the next send. */
  setDryRun(on: boolean): void {
    this.#dryRun = on;
  }

  /**
   * The caller holds a claims-limiter permit for this send (the claimer's late-binding pick).
   * `dryRun`: as decided when the claim's intent was written (a SIGHUP meanwhile changes the next
   * claim, never one whose intent says otherwise).
   */
  async send(body: ClaimRequest, dryRun = this.#dryRun, signal?: AbortSignal): Promise<SendOutcome> {
    if (dryRun) return { sent: false, dryRun: true };
    try {
      const result = await this.#transport.claimLiquidation(
        body,
        signal === undefined ? { permitHeld: true } : { signal, permitHeld: true },
      );
      return { sent: true, result };
    } catch (err) {
      if (err instanceof VenueError && err.leastRatio !== undefined) this.#learn(body.liquidation_id, err);
      throw err;
    }
  }

  /**
   * A claim of the insurance fund's row (`insurance_fund.route: claim_insurance_fund`): dry run is
   * decided here too. The caller holds the fund limiter's permit (the claimer's fund pump), as `send`
   * holds the claims limiter's.
   */
  async sendFund(body: FundClaimRequest, dryRun = this.#dryRun, signal?: AbortSignal): Promise<SendOutcome> {
    if (dryRun) return { sent: false, dryRun: true };
    if (this.#fund === undefined) throw new Error("no insurance fund transport: the fund's rows cannot be claimed here");
    const result = await this.#fund.claimInsuranceFund(body, signal === undefined ? { permitHeld: true } : { signal, permitHeld: true });
    return { sent: true, result };
  }

  /** A -1201 naming its least ratio: kept for the one decision made again, or final the second time. */
  #learn(id: number, err: VenueError): void {
    const least = err.leastRatio as number;
    if (this.#leastRatios === undefined || this.#leastRatios.has(id)) err.leastRatio = undefined;
    else this.#leastRatios.set(id, least);
  }
}
