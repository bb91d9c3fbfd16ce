/**
 * The PostgreSQL connection string never prints its password: URL and key=value forms, password-like
 * parameters, passwords holding URL delimiters, text that is no URL at all; and what the store itself
 * prints (its target, its errors) carries none of the credentials.
 */
import { describe, expect, it } from "vitest";
import { redactPostgresUrl } from "../../src/redaction.js";
import { PgDatabase } from "../../src/store/postgres/pgDatabase.js";
import { DatabaseUnavailableError } from "../../src/store/storeErrors.js";

describe("redactPostgresUrl", () => {
  it.each([
    ["postgres://liq:s3cret@db.internal:5432/liq", "postgres://liq:<redacted>@db.internal:5432/liq"],
    ["postgresql://liq:s3cret@db/liq?sslmode=verify-full", "postgresql://liq:<redacted>@db/liq?sslmode=verify-full"],
    ["postgres://liq@db/liq?password=s3cret&sslmode=require", "postgres://liq@db/liq?password=<redacted>&sslmode=require"],
    [
      "postgres://db/liq?sslpassword=s3cret&user=liq&PASSWORD=s3cret",
      "postgres://db/liq?sslpassword=<redacted>&user=liq&PASSWORD=<redacted>",
    ],
    ["postgres://liq:p@ss:w/rd?x@db:5432/liq", "postgres://liq:<redacted>@db:5432/liq"],
    ["postgres://db:5432/liq", "postgres://db:5432/liq"],
    ["host=db user=liq password=s3cret dbname=liq", "host=db user=liq password=<redacted> dbname=liq"],
    ["host=db password = 'it\\'s s3cret' dbname=liq", "host=db password = <redacted> dbname=liq"],
    ["postgres//liq:s3cret@db?password=s3cret", "postgres//liq:<redacted>@db?password=<redacted>"],
  ])("%s", (url, redacted) => {
    expect(redactPostgresUrl(url)).toBe(redacted);
  });

  it("hides the password even when the URL does not parse", () => {
    expect(redactPostgresUrl("postgres://liq:s3cret@db:notaport/liq")).not.toContain("s3cret");
  });
});

describe("PgDatabase output", () => {
  it("names its server without the credentials, in its target and its errors", async () => {
    const db = new PgDatabase({ url: "postgres://liq:s3cret@127.0.0.1:1/liq?application_name=t", connectTimeoutMs: 2_000 });
    try {
      expect(db.target).toBe("127.0.0.1:1/liq");
      const err = await db.query("SELECT 1").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseUnavailableError);
      expect(String((err as Error).message)).not.toContain("s3cret");
      expect(JSON.stringify(err)).not.toContain("s3cret");
    } finally {
      await db.close();
    }
  });

  it("refuses a malformed URL without echoing its password", () => {
    expect(() => new PgDatabase({ url: "postgres://liq:s3cret@db:notaport/liq" })).not.toThrow(/s3cret/);
  });
});
