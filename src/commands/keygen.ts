import { parseArgs } from "node:util";
import { generateKeyPair } from "../venue/signer.js";
import type { Command } from "./command.js";

/** Prints a new key pair. The secret goes to stdout only because the operator asked for it. */
export const keygen: Command = async (args, io) => {
  const { values } = parseArgs({ args, options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
  if (values.help) {
    io.stdout.write(
      "usage: liquidator keygen [--json]\n  prints a new ed25519 key pair: secret (base58 seed) and public key (ed25519:...)\n",
    );
    return 0;
  }
  const pair = generateKeyPair();
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ secret: pair.secret, public_key: pair.publicKey })}\n`);
  } else {
    io.stdout.write(`secret:     ${pair.secret}\npublic_key: ${pair.publicKey}\n`);
    io.stderr.write(
      "keep the secret out of files under version control; give it to the daemon as LIQUIDATOR_SECRET or LIQUIDATOR_SECRET_FILE (mode 0600)\n",
    );
  }
  return 0;
};
