/**
 * The running daemon's side of `liquidator rearm`: every second the replica that may send takes the
 * operator's requests from the store (store/operatorRequests.ts) and acts on them — `rearm` clears a
 * `halted` or `reducing` state and restarts the loss baselines with the running limits. A store that
 * cannot be read now is tried again on the next turn (logged once per failure run).
 */
import type { ProtectionGuard } from "../daemon/protectionGuard.js";
import { sleep } from "../sleep.js";
import type { StateStore } from "../store/stateStore.js";

export async function operatorRequestLoop(o: {
  store: Pick<StateStore, "takeRequests" | "mayLead">;
  guard: Pick<ProtectionGuard, "rearm">;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  signal: AbortSignal;
  everyMs?: number;
}): Promise<void> {
  let failing = false;
  while (!o.signal.aborted) {
    await sleep(o.everyMs ?? 1_000, o.signal);
    if (o.signal.aborted || !o.store.mayLead()) continue;
    try {
      for (const r of await o.store.takeRequests()) {
        o.logger.info({ kind: r.kind, requestedAt: new Date(r.at).toISOString(), by: r.by }, "operator request taken");
        if (r.kind === "rearm") o.guard.rearm(undefined, "command");
      }
      failing = false;
    } catch (err) {
      if (!failing) o.logger.warn({ err: (err as Error).message }, "operator requests not read; trying again");
      failing = true;
    }
  }
}
