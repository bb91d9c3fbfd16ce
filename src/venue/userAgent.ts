/**
 * The `User-Agent` every venue request and stream upgrade carries (docs/protocol.md §9: whether requests
 * without one pass the venue's edge is unknown): `liquidator/<version>`, the version from
 * package.json (as `build_info` has it), read once when the module loads.
 */
import { readFileSync } from "node:fs";

/** The package's version, or "unknown" when package.json cannot be read (a copied-out bundle). */
function readVersion(): string {
  try {
    // src/venue/ and dist/venue/ both sit two levels below the package root.
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" && /^[\w.+-]{1,64}$/.test(pkg.version) ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

export const PACKAGE_VERSION = readVersion();
export const USER_AGENT = `liquidator/${PACKAGE_VERSION}`;
