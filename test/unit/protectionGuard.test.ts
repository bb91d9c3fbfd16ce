/**
 * The protections as the daemon runs them (daemon/control/protectionGuard.ts): when the net is looked at,
 * what drives the trading state, what is journaled.
 */
import { describe, expect, it } from "vitest";
import type { ProtectionRecord } from "../../src/core/journalRecords.js";
import { ProtectionGuard } from "../../src/daemon/control/protectionGuard.js";
import type { ProtectionLimits } from "../../src/engine/protections.js";
import { PROTECTIONS_OFF } from "../support/protectionsOff.js";

const ETH = "PERP_ETH_USDC";
const AT = Date.UTC(2026, 0, 5, 10, 0, 0);

/** A guard over a ledger whose realized net the test sets, with a trading state it can read. */
function guardOver(limits: Partial<ProtectionLimits>) {
  const ledger = { net: 0 };
  const trading = { state: "active" as "active" | "reducing" | "halted", reason: undefined as string | undefined };
  const journal: ProtectionRecord[] = [];
  const guard = new ProtectionGuard({
    limits: { ...PROTECTIONS_OFF, ...limits },
    ledger: () => ({
      totals: () => ({ net: ledger.net }) as ReturnType<ProtectionGuardLedger["totals"]>,
      unrealized: () => 0,
      held: () => 0,
      bySymbol: () => new Map(),
    }),
    mark: () => 100,
    trading: {
      get state() {
        return trading.state;
      },
      get reason() {
        return trading.reason;
      },
      set(state, reason) {
        trading.state = state;
        trading.reason = state === "active" ? undefined : reason;
      },
    },
    store: { append: (r) => journal.push(r), mayLead: () => true },
    reopen: () => undefined,
    tripped: () => undefined,
    now: () => AT,
    logger: { info: () => undefined, warn: () => undefined },
    intervalMs: 3_600_000, // no tick during a test: every look is the test's own
  });
  return { guard, ledger, trading, journal };
}
type ProtectionGuardLedger = ReturnType<ConstructorParameters<typeof ProtectionGuard>[0]["ledger"]>;

describe("ProtectionGuard", () => {
  it("looks at the net when it starts, so a loss made before the first tick counts against the day", () => {
    const { guard, ledger, trading, journal } = guardOver({ dailyLossLimit: 1_000 });
    const stop = guard.start();
    try {
      expect(journal.at(-1)?.dayBaseline).toBe(0); // the day counted from the net at the start
      ledger.net = -600; // the first claim lost, before any tick
      guard.check();
      expect(trading.state).toBe("active");
      ledger.net = -1_000;
      guard.check();
      expect(trading.state).toBe("halted");
      expect(trading.reason).toBe("daily_loss");
      expect(journal.at(-1)).toMatchObject({ trip: "daily_loss", state: "halted", dayBaseline: 0 });
    } finally {
      stop();
    }
  });

  it("gates new claims while halted and on a cooling symbol only", () => {
    const { guard, ledger } = guardOver({ dailyLossLimit: 100, lossStreak: 1, cooldownS: 60 });
    const stop = guard.start();
    try {
      const liq = { liquidationId: 1, timestamp: AT, positions: [{ symbol: ETH }] } as unknown as Parameters<typeof guard.gate>[0];
      expect(guard.gate(liq)).toBeUndefined();
      guard.claimClosed({ symbols: [ETH], liquidatorFee: 1, trading: -5, fees: 0 } as unknown as Parameters<typeof guard.claimClosed>[0]);
      expect(guard.gate(liq)).toBe("cooldown");
      ledger.net = -100;
      guard.check();
      expect(guard.gate(liq)).toBe("protection");
    } finally {
      stop();
    }
  });
});
