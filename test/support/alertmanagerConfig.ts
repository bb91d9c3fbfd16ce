/**
 * The shipped Alertmanager config (deploy/alertmanager/) rendered the way its start script renders
 * it, into a temp folder, for the tests. Not a test file itself.
 */
import { spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "./dashboardNames.js";

export const ALERTMANAGER_DIR = join(REPO_ROOT, "deploy", "alertmanager");
export const ALERTMANAGER_TEMPLATE = join(ALERTMANAGER_DIR, "alertmanager.yml");
export const RENDER_SCRIPT = join(ALERTMANAGER_DIR, "render-config.sh");

export const has = (binary: string, ...args: string[]): boolean => spawnSync(binary, args, { encoding: "utf8" }).status === 0;

export interface RenderResult {
  status: number | null;
  stderr: string;
}

export function renderConfig(template: string, output: string, env: Record<string, string>): RenderResult {
  const r = spawnSync("sh", [RENDER_SCRIPT, template, output], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    encoding: "utf8",
  });
  return { status: r.status, stderr: r.stderr };
}

/**
 * Renders the shipped config for a run in `dir`: the secret files it names are moved under `dir`
 * (holding throwaway values), the webhook URL and Telegram chat come from the environment, the
 * Telegram token from a file, as in production. Returns the rendered config's path.
 */
export async function renderForTest(dir: string, webhookUrl: string, edit: (text: string) => string = (t) => t): Promise<string> {
  const secrets = join(dir, "secrets");
  await mkdir(secrets, { recursive: true });
  for (const name of ["webhook_token", "pagerduty_routing_key", "telegram_bot_token"])
    await writeFile(join(secrets, name), `test-${name}\n`, { mode: 0o600 });
  // Slack's URL is read from its file when a notification goes out: an address nothing listens on.
  await writeFile(join(secrets, "slack_webhook_url"), "http://127.0.0.1:9/slack\n", { mode: 0o600 });
  const template = join(dir, "alertmanager.template.yml");
  await writeFile(template, edit((await readFile(ALERTMANAGER_TEMPLATE, "utf8")).replaceAll("/etc/alertmanager/secrets", secrets)));
  const output = join(dir, "alertmanager.yml");
  const r = renderConfig(template, output, {
    ALERT_WEBHOOK_URL: webhookUrl,
    TELEGRAM_BOT_TOKEN_FILE: join(secrets, "telegram_bot_token"),
    TELEGRAM_CHAT_ID: "-1001234567890",
  });
  if (r.status !== 0) throw new Error(`render-config.sh failed: ${r.stderr}`);
  return output;
}
