/**
 * Why claiming is paused (`claiming_paused{reason}`): -1101 margin, journal write failure, clock skew,
 * positions not read yet, the account not known well enough to check margin, standby, and the trading states that claim nothing (`reducing`, `halted`).
 * A plain list below both daemon/ (which pauses) and observe/ (whose help text names every reason).
 */
export const PAUSE_REASONS = ["margin", "journal", "clock", "positions", "account", "standby", "reducing", "halted"] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];
