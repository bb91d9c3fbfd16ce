/**
 * The single point where a claim leaves the process. `dry_run` is enforced here and nowhere else
 * (docs/architecture.md rule 4): everything before this point — decision, ranking, limiter, journal intent —
 * runs the same in a dry run, so a dry run shows exactly what a live run would have sent.
 */
import type { ClaimRequest, ClaimResult } from "../venue/restSchemas.js";

/** The narrow transport a sender needs (RestClient satisfies it). */
export interface ClaimTransport {
  claimLiquidation(body: ClaimRequest, opts?: { signal?: AbortSignal; permitHeld?: boolean }): Promise<ClaimResult>;
}

export type SendOutcome = { sent: true; result: ClaimResult } | { sent: false; dryRun: true };

export class ClaimSender {
  readonly #transport: ClaimTransport;
  #dryRun: boolean;

  constructor(transport: ClaimTransport, dryRun: boolean) {
    this.#transport = transport;
    this.#dryRun = dryRun;
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
    const result = await this.#transport.claimLiquidation(body, signal === undefined ? { permitHeld: true } : { signal, permitHeld: true });
    return { sent: true, result };
  }
}
