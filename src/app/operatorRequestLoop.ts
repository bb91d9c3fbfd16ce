/**
 * The running daemon's side of `liquidator rearm`: every second the replica that may send reads the
 * operator's open requests from the store (store/operatorRequests.ts), acts on each — `rearm` clears
 * a `halted` or `reducing` state and restarts the loss baselines with the running limits — then
 * marks it done. A done that fails is tried again on the next turn without acting twice in this
 * process; a store that cannot be read now is tried again too (logged once per failure run).
 */
import type { ProtectionGuard } from "../daemon/control/protectionGuard.js";
import { sleep } from "../sleep.js";
import type { StateStore } from "../store/stateStore.js";

export async function operatorRequestLoop(o: {
  store: Pick<StateStore, "requests" | "requestDone" | "mayLead">;
  guard: Pick<ProtectionGuard, "rearm">;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  signal: AbortSignal;
  everyMs?: number;
}): Promise<void> {
  let failing = false;
  /** Requests acted on whose done has not been recorded yet. */
  const acted = new Set<string>();
  while (!o.signal.aborted) {
    await sleep(o.everyMs ?? 1_000, o.signal);
    if (o.signal.aborted || !o.store.mayLead()) continue;
    try {
      for (const r of await o.store.requests()) {
        if (!acted.has(r.id)) {
          o.logger.info({ kind: r.kind, requestedAt: new Date(r.at).toISOString(), by: r.by }, "operator request taken");
          if (r.kind === "rearm") o.guard.rearm(undefined, "command");
          acted.add(r.id);
        }
        await o.store.requestDone(r.id);
        acted.delete(r.id);
      }
      failing = false;
    } catch (err) {
      if (!failing) o.logger.warn({ err: (err as Error).message }, "operator requests not read or not marked done; trying again");
      failing = true;
    }
  }
}
