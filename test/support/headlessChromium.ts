/**
 * A page rendered by Debian's headless `chromium`: the DOM after load and every console message the
 * page produced (script errors, resources that failed to load). `undefined` when no chromium is
 * installed (`apt-get install chromium`), so a test can skip with a message.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export const CHROMIUM = process.env.LIQUIDATOR_CHROMIUM ?? "chromium";

/** Flags for a container: no sandbox (root), no GPU, console messages logged to stderr. */
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"];

export async function chromiumAvailable(): Promise<boolean> {
  try {
    await run(CHROMIUM, ["--version"], { timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

export async function renderPage(file: string, screenshot?: string): Promise<{ dom: string; console: string[] }> {
  const url = `file://${file}`;
  const { stdout, stderr } = await run(CHROMIUM, [...FLAGS, "--dump-dom", url], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  if (screenshot !== undefined) {
    await run(CHROMIUM, [...FLAGS, "--window-size=1400,2400", `--screenshot=${screenshot}`, url], { timeout: 120_000 });
  }
  const console = stderr.split("\n").filter((l) => /:CONSOLE[:(]/.test(l));
  return { dom: stdout, console };
}
