/** GET /v1/client/key_info read tolerantly (docs/protocol.md §8), and what a row means for the daemon's key. */
import { describe, expect, test } from "vitest";
import { assessKey, keyInfoRowForTests } from "../../src/venue/keyInfo.js";

const KEY = "ed25519:EZx5683gzqqkcFghzgGJM1NY9oS35ZQWgvbuBu2ZXZH8";
const NOW = 1_750_000_000_000;
const DAY = 86_400_000;
const row = (over: Record<string, unknown>) =>
  keyInfoRowForTests({ orderly_key: KEY, scope: "read,trading", expiration: NOW + 100 * DAY, key_status: "ACTIVE", ...over });

describe("keyInfoRowForTests reads every spelling", () => {
  test.each([
    ["expiration as a number", { expiration: NOW + DAY }, NOW + DAY],
    ["expiration as a decimal string", { expiration: String(NOW + DAY) }, NOW + DAY],
    ["expiration in seconds", { expiration: (NOW + DAY) / 1000 }, NOW + DAY],
    ["expiration absent", { expiration: undefined }, undefined],
    ["expiration garbage", { expiration: "soon" }, undefined],
  ])("%s", (_name, over, expected) => {
    expect(row(over)?.expiresAt).toBe(expected);
  });
  test("scope comma-separated with spaces and case, or a list", () => {
    expect(row({ scope: " Read , TRADING " })?.scopes).toEqual(["read", "trading"]);
    expect(row({ scope: ["read", "trading"] })?.scopes).toEqual(["read", "trading"]);
  });
  test("key_status optional; extra fields ignored; the types seen are kept", () => {
    const r = row({ key_status: undefined, ip_restriction: "x", expiration: "1" });
    expect(r?.status).toBeUndefined();
    expect(r?.types).toEqual({ scope: "string", expiration: "string", key_status: "undefined" });
  });
  test("a row without a key is dropped", () => {
    expect(keyInfoRowForTests({ scope: "trading" })).toBeUndefined();
    expect(keyInfoRowForTests(null)).toBeUndefined();
  });
});

describe("assessKey", () => {
  const assess = (over: Record<string, unknown>) => assessKey([row(over)!], KEY, NOW);
  test("a trading key far from expiry is ok", () => {
    expect(assess({}).verdict).toBe("ok");
  });
  test("an expired key fails, naming the expiry", () => {
    const a = assess({ expiration: NOW - 1 });
    expect(a.verdict).toBe("fail");
    expect(a.verdict === "fail" && a.problem).toMatch(/expired/);
  });
  test("a key without the trading scope fails", () => {
    const a = assess({ scope: "read" });
    expect(a.verdict).toBe("fail");
    expect(a.verdict === "fail" && a.problem).toMatch(/without 'trading'/);
  });
  test("a removed key fails", () => {
    expect(assess({ key_status: "REMOVING" }).verdict).toBe("fail");
  });
  test("14 days or less before expiry warns; no expiry warns; an unlisted key warns", () => {
    expect(assess({ expiration: NOW + 13 * DAY }).verdict).toBe("warn");
    expect(assess({ expiration: NOW + 15 * DAY }).verdict).toBe("ok");
    expect(assess({ expiration: undefined }).verdict).toBe("warn");
    expect(assessKey([], KEY, NOW).verdict).toBe("warn");
  });
});
