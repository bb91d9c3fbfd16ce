/**
 * Protection limits with every protection off, for tests that switch on one at a time
 * (`{ ...PROTECTIONS_OFF, dailyLossLimit: 100 }`). The cooldown is the config's default.
 */
import type { ProtectionLimits } from "../../src/engine/protections.js";

export const PROTECTIONS_OFF: ProtectionLimits = { dailyLossLimit: null, drawdownLimit: null, lossStreak: null, cooldownS: 600 };
