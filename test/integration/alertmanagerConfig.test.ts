/**
 * deploy/alertmanager/: the start script renders the config from env and secret files (and refuses
 * what it must), Debian's Alertmanager accepts the result (`amtool check-config`), alerts are routed
 * by severity (`amtool config routes test`), and every alert name the config names exists.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ALERTMANAGER_TEMPLATE, has, renderConfig, renderForTest } from "../support/alertmanagerConfig.js";
import { loadAlertRules } from "../support/dashboardNames.js";

const amtool = has("amtool", "--version");
const inCi = process.env.CI !== undefined && process.env.CI !== "";
if (!amtool) {
  if (inCi) {
    describe("amtool", () => {
      it("is installed (required in CI: apt-get install prometheus-alertmanager)", () => {
        expect.fail("amtool not found on PATH");
      });
    });
  } else
    process.stderr.write("NOTE: amtool not on PATH; skipping the Alertmanager config checks (apt-get install prometheus-alertmanager)\n");
}

let dir = "";
afterEach(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
  dir = "";
});
const tempDir = async (): Promise<string> => {
  dir = await mkdtemp(join(tmpdir(), "liq-am-"));
  return dir;
};

describe("the Alertmanager config's render script", () => {
  it("fills placeholders from NAME or NAME_FILE, leaves comments alone, writes the result 0600", async () => {
    const d = await tempDir();
    await writeFile(join(d, "tpl.yml"), '# ${NOT_ME}\na: "${ONE}"\nb: ${TWO}-${ONE}\n');
    await writeFile(join(d, "two"), "2\n");
    const r = renderConfig(join(d, "tpl.yml"), join(d, "out.yml"), { ONE: "x:y/z", TWO_FILE: join(d, "two") });
    expect(r).toEqual({ status: 0, stderr: "" });
    expect(await readFile(join(d, "out.yml"), "utf8")).toBe('# ${NOT_ME}\na: "x:y/z"\nb: 2-x:y/z\n');
    expect((await stat(join(d, "out.yml"))).mode & 0o777).toBe(0o600);
  });

  it("refuses a missing value and a value that would change the YAML, leaving no output", async () => {
    const d = await tempDir();
    await writeFile(join(d, "tpl.yml"), 'a: "${ONE}"\n');
    const missing = renderConfig(join(d, "tpl.yml"), join(d, "out.yml"), {});
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("no value for ${ONE}: set ONE or ONE_FILE");
    const quoted = renderConfig(join(d, "tpl.yml"), join(d, "out.yml"), { ONE: 'x"\ny: 1' });
    expect(quoted.status).not.toBe(0);
    expect(quoted.stderr).toContain("the value of ONE contains a quote");
    await expect(stat(join(d, "out.yml"))).rejects.toThrow(/ENOENT/);
  });
});

describe.skipIf(!amtool)("the shipped Alertmanager config with amtool", () => {
  const amtoolRun = (...args: string[]): string => execFileSync("amtool", args, { encoding: "utf8", stdio: "pipe" });

  it("renders to a config amtool accepts, with every receiver and inhibition", async () => {
    const config = await renderForTest(await tempDir(), "http://127.0.0.1:9/alerts");
    const out = amtoolRun("check-config", config);
    expect(out).toMatch(/SUCCESS/);
    expect(out).toMatch(/5 inhibit rules/);
    expect(out).toMatch(/3 receivers/);
    const text = await readFile(config, "utf8");
    const live = text.split("\n").filter((l) => !/^\s*#/.test(l));
    expect(live.filter((l) => l.includes("${"))).toEqual([]);
    for (const kind of ["webhook_configs", "pagerduty_configs", "slack_configs", "telegram_configs"]) expect(text).toContain(kind);
  });

  it.each([
    ["critical", "webhook,pager,chat"],
    ["warning", "webhook,chat"],
    ["info", "webhook"],
  ])("routes severity=%s to %s", async (severity, receivers) => {
    const config = await renderForTest(await tempDir(), "http://127.0.0.1:9/alerts");
    expect(
      amtoolRun("config", "routes", "test", `--config.file=${config}`, `severity=${severity}`, "alertname=LiquidatorStreamDown").trim(),
    ).toBe(receivers);
  });

  it("names only alerts that exist in grafana/alerts.yml, and every rule's severity has a route", async () => {
    const names = new Set(loadAlertRules().map((r) => r.alert));
    const doc = parse(await readFile(ALERTMANAGER_TEMPLATE, "utf8")) as {
      inhibit_rules: { source_matchers: string[]; target_matchers: string[] }[];
    };
    const named = doc.inhibit_rules
      .flatMap((r) => [...r.source_matchers, ...r.target_matchers])
      .flatMap((m) => /^alertname=~?"([^"]+)"$/.exec(m)?.[1]?.split("|") ?? [])
      .filter((n) => n !== "Liquidator.+");
    expect(named.length).toBeGreaterThanOrEqual(6);
    for (const n of named) expect(names.has(n), n).toBe(true);
    const severities = new Set(loadAlertRules().map((r) => r.labels?.severity));
    expect([...severities].sort()).toEqual(["critical", "info", "warning"]);
  });
});
