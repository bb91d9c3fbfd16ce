/** `liquidator --version` prints the version (package.json's) and nothing else, and exits 0. */
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { expect, test } from "vitest";
import { main } from "../../src/commands/dispatch.js";

function sink(): { w: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    w: new Writable({
      write(chunk, _enc, cb) {
        chunks.push(String(chunk));
        cb();
      },
    }),
    text: () => chunks.join(""),
  };
}

test.each([["--version"], ["-V"]])("%s: the version and nothing else", async (flag) => {
  const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  const out = sink();
  const err = sink();
  const code = await main([flag], { stdout: out.w, stderr: err.w, env: {}, signal: new AbortController().signal });
  expect(code).toBe(0);
  expect(out.text()).toBe(`${version}\n`);
  expect(err.text()).toBe("");
});
