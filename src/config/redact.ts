/**
 * The effective configuration as an operator may see it: every key, plus whether a secret is set,
 * where from, and the public key derived from it. The secret itself is never rendered; as a last
 * guard, its text is replaced wherever it might still appear (e.g. pasted into another key).
 */
import { stringify } from "yaml";
import { REDACTED, redactPostgresUrl } from "../redaction.js";
import { Signer } from "../venue/signer.js";
import type { LoadedConfig } from "./loadConfig.js";

interface SecretReport {
  set: boolean;
  /** The value, always `<redacted>` when set. */
  value: string | null;
  source: string | null;
  /** `ed25519:...` derived from the secret: safe to show, and what the venue must have registered. */
  public_key: string | null;
}

function secretReport(loaded: LoadedConfig): SecretReport {
  if (loaded.secret === undefined) return { set: false, value: null, source: null, public_key: null };
  let publicKey: string | null = null;
  try {
    publicKey = new Signer({ secret: loaded.secret, accountId: loaded.config.venue.account_id }).publicKey;
  } catch {
    // loadConfig validated it; an unparsable secret here only loses the public key line.
  }
  return { set: true, value: REDACTED, source: loaded.secretSource ?? null, public_key: publicKey };
}

function scrub(text: string, secret: string | undefined): string {
  if (secret === undefined || secret === "") return text;
  const bare = secret.startsWith("ed25519:") ? secret.slice("ed25519:".length) : secret;
  return text.split(secret).join(REDACTED).split(bare).join(REDACTED);
}

/** The config with the connection string's password hidden: it may hold one. */
function printable(config: LoadedConfig["config"]): LoadedConfig["config"] {
  if (config.state.postgres_url === "") return config;
  return { ...config, state: { ...config.state, postgres_url: redactPostgresUrl(config.state.postgres_url) } };
}

/** The effective config and its provenance as one JSON-ready object. */
function effectiveConfigObject(loaded: LoadedConfig): Record<string, unknown> {
  return {
    config_file: loaded.path ?? null,
    env_overrides: [...(loaded.envOverrides ?? [])],
    secret: secretReport(loaded),
    config: printable(loaded.config),
  };
}

export function renderEffectiveConfigJson(loaded: LoadedConfig): string {
  return scrub(`${JSON.stringify(effectiveConfigObject(loaded), null, 2)}\n`, loaded.secret);
}

/**
 * YAML of the effective config. The provenance and the secret status are comments, so the output
 * is itself a valid config file (the secret stays in the environment).
 */
export function renderEffectiveConfig(loaded: LoadedConfig): string {
  const s = secretReport(loaded);
  const overrides = loaded.envOverrides ?? [];
  const secretLine = s.set
    ? `# secret: "${REDACTED}" (from ${s.source ?? "environment"}; public key ${s.public_key ?? "unknown"})`
    : loaded.config.venue.mode === "live"
      ? "# secret: not set"
      : "# secret: not set (the embedded simulator generates and registers one)";
  const header = [
    "# liquidator effective configuration",
    `# file: ${loaded.path ?? "none (built-in defaults)"}`,
    `# environment overrides: ${overrides.length > 0 ? overrides.join(", ") : "none"}`,
    secretLine,
  ].join("\n");
  return scrub(`${header}\n${stringify(printable(loaded.config), { lineWidth: 0 })}`, loaded.secret);
}
