/**
 * Security checks of the configuration that config.test.ts and checkConfig.test.ts leave out (the
 * issue's item 5; those files already cover plain http:// base_url and ws:// ws_private_url to a
 * remote host, loopback exceptions, allow_insecure in YAML and env, and 0644/0640/0604/0660 secret
 * files):
 *
 * - live mode refuses a plain ws:// PUBLIC stream URL, and plain URLs arriving through the
 *   environment variables; host names that merely start like loopback are not loopback;
 * - `liquidator run` with a plain URL to a real, listening non-loopback address exits 78 naming
 *   allow_insecure, and the listener never sees a connection (refused before any network I/O);
 * - a secret file writable (not only readable) by others or group, a symlink to an open file, and
 *   a directory are refused, the message naming the path and never the secret.
 */

import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/commands/dispatch.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { ConfigError } from "../../src/errors.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { waitFor } from "../support/wait.js";

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liq-security-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const secret = generateKeyPair().secret;
const secureVenue = {
  mode: "live",
  base_url: "https://api.example.com",
  ws_url: "wss://ws.example.com",
  ws_private_url: "wss://ws-private.example.com",
  account_id: "0xabc123",
};

async function configFile(doc: unknown): Promise<string> {
  const path = join(dir, `c${n++}.yaml`);
  await writeFile(path, stringify(doc));
  return path;
}

async function refusal(doc: unknown, env: NodeJS.ProcessEnv): Promise<ConfigError> {
  try {
    await loadConfig({ path: await configFile(doc), env });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError, the config loaded");
}

describe("live mode refuses plain http:// / ws:// unless venue.allow_insecure", () => {
  test("a plain ws:// public stream URL to a remote host", async () => {
    const err = await refusal({ venue: { ...secureVenue, ws_url: "ws://ws.example.com" } }, { LIQUIDATOR_SECRET: secret });
    expect(err.key).toBe("venue.ws_url");
    expect(err.message).toMatch(/allow_insecure/);
    expect(err.message).not.toContain(secret);
  });

  test.each([
    ["LIQUIDATOR_BASE_URL", "http://api.example.com"],
    ["LIQUIDATOR_WS_URL", "ws://ws.example.com"],
    ["LIQUIDATOR_WS_PRIVATE_URL", "ws://10.1.2.3:9000"],
  ])("a plain URL from %s", async (variable, url) => {
    const err = await refusal({ venue: secureVenue }, { LIQUIDATOR_SECRET: secret, [variable]: url });
    expect(err.message).toMatch(/allow_insecure/);
    // ... and LIQUIDATOR_ALLOW_INSECURE=true lets the same through.
    const ok = await loadConfig({
      path: await configFile({ venue: secureVenue }),
      env: { LIQUIDATOR_SECRET: secret, [variable]: url, LIQUIDATOR_ALLOW_INSECURE: "true" },
    });
    expect(ok.config.venue.allow_insecure).toBe(true);
  });

  test.each(["http://127.0.0.1.nip.io", "http://localhost.example.com", "http://127.example.com:8080", "http://0.0.0.0:8080"])(
    "%s is not loopback",
    async (url) => {
      const err = await refusal({ venue: { ...secureVenue, base_url: url } }, { LIQUIDATOR_SECRET: secret });
      expect(err.key).toBe("venue.base_url");
    },
  );

  test("`liquidator run` to a listening non-loopback address: exit 78 before any connection", async (ctx) => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;
    if (address === undefined) return ctx.skip("no non-loopback IPv4 address on this host");
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    try {
      const port = (server.address() as { port: number }).port;
      let stderr = "";
      let stdout = "";
      const io = {
        stdout: {
          write: (s: string) => {
            stdout += s;
            return true;
          },
        } as unknown as NodeJS.WritableStream,
        stderr: {
          write: (s: string) => {
            stderr += s;
            return true;
          },
        } as unknown as NodeJS.WritableStream,
        env: {
          LIQUIDATOR_VENUE: "live",
          LIQUIDATOR_BASE_URL: `http://${address}:${port}`,
          LIQUIDATOR_WS_URL: `ws://${address}:${port}`,
          LIQUIDATOR_WS_PRIVATE_URL: `ws://${address}:${port}`,
          LIQUIDATOR_ACCOUNT_ID: "0xabc123",
          LIQUIDATOR_SECRET: secret,
          LIQUIDATOR_METRICS_PORT: "0",
          LIQUIDATOR_STATE_DIR: join(dir, "state-run"),
        },
        signal: new AbortController().signal,
      };
      // Refused at once; a daemon that started instead is reported, not waited for.
      const status = await Promise.race([main(["run"], io), new Promise((r) => setTimeout(() => r("still running after 5 s"), 5_000))]);
      expect(status).toBe(78);
      expect(stderr).toMatch(/allow_insecure/);
      expect(stderr).not.toContain(secret);
      expect(stdout).toBe("");
      // Control: a connection of our own, made after the refusal, is seen and counted; one the
      // refused run had started would have been counted first. Only ours is.
      const own = connect(port, address);
      own.on("error", () => undefined);
      await waitFor(() => connections >= 1, "our own connection counted");
      own.destroy();
      expect(connections).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("secret files open to others are refused", () => {
  async function secretFile(name: string, mode: number): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, `${secret}\n`);
    await chmod(path, mode);
    return path;
  }

  test.each(["602", "620", "606", "622"])("mode 0%s (writable by group or others)", async (octal) => {
    const path = await secretFile(`secret-${octal}`, Number.parseInt(octal, 8));
    const err = await refusal({ venue: secureVenue }, { LIQUIDATOR_SECRET_FILE: path });
    expect(err.key).toBe("LIQUIDATOR_SECRET_FILE");
    expect(err.message).toContain(`chmod 600 ${path}`);
    expect(err.message).not.toContain(secret);
  });

  test("a 0600 symlink to a 0644 file: the mode of the file read is what counts", async () => {
    const target = await secretFile("secret-open-target", 0o644);
    const link = join(dir, "secret-link");
    await symlink(target, link);
    const err = await refusal({ venue: secureVenue }, { LIQUIDATOR_SECRET_FILE: link });
    expect(err.message).toMatch(/readable or writable by group or others/);
    expect(err.message).not.toContain(secret);
  });

  test("a directory", async () => {
    const path = join(dir, "secret-dir");
    await mkdir(path, { mode: 0o700 });
    const err = await refusal({ venue: secureVenue }, { LIQUIDATOR_SECRET_FILE: path });
    expect(err.key).toBe("LIQUIDATOR_SECRET_FILE");
    expect(err.message).toMatch(/not a regular file/);
  });
});
