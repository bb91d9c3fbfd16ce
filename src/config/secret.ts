/**
 * The signing secret comes only from the environment: LIQUIDATOR_SECRET (the base58 seed itself) or
 * LIQUIDATOR_SECRET_FILE (a file holding it, e.g. a container secret mount); a 64-byte secret (seed and
 * public key, as some clients write it) is accepted when its halves match. Never from YAML, so a
 * config file can be shared, printed and committed. No message here ever contains the secret.
 */
import { open } from "node:fs/promises";
import { KeyFormatError } from "../errors.js";
import { parseSecret } from "../venue/signer.js";
import type { Problem } from "./issues.js";

export type SecretSource = "LIQUIDATOR_SECRET" | "LIQUIDATOR_SECRET_FILE";

export interface SecretResult {
  secret: string | undefined;
  source: SecretSource | undefined;
  problems: Problem[];
}

// A seed is 44 base58 characters (docs/protocol.md §2); anything much larger is the wrong file.
const MAX_SECRET_FILE_BYTES = 4096;

function validated(text: string, source: SecretSource, suffix: string): SecretResult {
  try {
    parseSecret(text);
  } catch (err) {
    if (err instanceof KeyFormatError) {
      // parseSecret's messages describe the shape only, never the text.
      return { secret: undefined, source, problems: [{ key: source, problem: `${err.message}${suffix}` }] };
    }
    throw err;
  }
  return { secret: text, source, problems: [] };
}

async function readSecretFile(path: string): Promise<SecretResult> {
  const fail = (problem: string): SecretResult => ({
    secret: undefined,
    source: "LIQUIDATOR_SECRET_FILE",
    problems: [{ key: "LIQUIDATOR_SECRET_FILE", problem }],
  });
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    return fail(`cannot open secret file ${path} (${code}); expected a readable file holding the base58 secret`);
  }
  try {
    // fstat on the opened handle: the mode checked is the mode of the file actually read.
    const stat = await handle.stat();
    if (!stat.isFile()) return fail(`${path} is not a regular file`);
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, "0");
      return fail(`secret file ${path} is readable or writable by group or others (mode ${mode}); run: chmod 600 ${path}`);
    }
    if (stat.size > MAX_SECRET_FILE_BYTES) return fail(`secret file ${path} is ${stat.size} bytes; expected one base58 secret`);
    const text = (await handle.readFile({ encoding: "utf8" })).trim();
    if (text === "") return fail(`secret file ${path} is empty; expected the base58 secret`);
    return validated(text, "LIQUIDATOR_SECRET_FILE", ` (in ${path})`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    return fail(`cannot read secret file ${path} (${code})`);
  } finally {
    await handle.close();
  }
}

/** Reads and checks the secret. Empty variables count as unset, like every other LIQUIDATOR_ variable. */
export async function readSecret(env: NodeJS.ProcessEnv): Promise<SecretResult> {
  const direct = env.LIQUIDATOR_SECRET;
  const file = env.LIQUIDATOR_SECRET_FILE;
  const hasDirect = direct !== undefined && direct !== "";
  const hasFile = file !== undefined && file !== "";
  if (hasDirect && hasFile) {
    return {
      secret: undefined,
      source: undefined,
      problems: [{ key: "LIQUIDATOR_SECRET", problem: "both LIQUIDATOR_SECRET and LIQUIDATOR_SECRET_FILE are set; set only one of them" }],
    };
  }
  if (hasDirect) return validated(direct.trim(), "LIQUIDATOR_SECRET", "");
  if (hasFile) return readSecretFile(file);
  return { secret: undefined, source: undefined, problems: [] };
}
