/** The venue's keep-alive hint: how long it keeps an idle connection open (claimLanes.ts, claimConnection.ts). */

const KEEP_ALIVE_TIMEOUT = /(?:^|[\s,;])timeout=(\d+)/i;

/** The idle timeout a `Keep-Alive` header announces, ms (undefined without a usable one). */
export function keepAliveHintMs(header: string | undefined): number | undefined {
  const m = header === undefined ? null : KEEP_ALIVE_TIMEOUT.exec(header);
  const s = m === null ? Number.NaN : Number(m[1]);
  return Number.isFinite(s) && s > 0 ? s * 1000 : undefined;
}
