/**
 * Schema migrations against a real PostgreSQL: applied once, idempotent at every later open, serialised
 * when replicas open at the same moment, refused when the database is newer than the build, and the
 * literal SQL agreeing with the TypeScript state lists it must match.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { CLAIM_STATES, ORDER_STATES } from "../../src/store/postgres/intentStates.js";
import { migrate } from "../../src/store/postgres/migrate.js";
import { MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { PgDatabase } from "../../src/store/postgres/pgDatabase.js";
import { describeWithPostgres, type PgCluster, startPgCluster } from "../support/pgCluster.js";

describeWithPostgres("PostgreSQL store: migrations", () => {
  let cluster: PgCluster | undefined;
  const dbs: PgDatabase[] = [];
  const open = (url: string): PgDatabase => {
    const db = new PgDatabase({ url });
    dbs.push(db);
    return db;
  };

  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(async () => {
    await Promise.allSettled(dbs.map((db) => db.close()));
    await cluster?.destroy();
  });

  it("applies every migration once; opening again changes nothing", async () => {
    const db = open(cluster!.url);
    const first = await migrate(db);
    expect(first.applied).toEqual(MIGRATIONS.map((m) => m.version));
    const again = await migrate(db);
    expect(again).toEqual({ applied: [], version: first.version });
    const rows = await db.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(rows.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it("replicas opening at the same moment migrate once between them", async () => {
    const url = await cluster!.createDatabase("race");
    const replicas = Array.from({ length: 4 }, () => open(url));
    const results = await Promise.all(replicas.map((db) => migrate(db)));
    const appliers = results.filter((r) => r.applied.length > 0);
    expect(appliers).toHaveLength(1);
    expect(appliers[0]!.applied).toEqual(MIGRATIONS.map((m) => m.version));
    const count = await replicas[0]!.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
    expect(count.rows[0]!.n).toBe(MIGRATIONS.length);
  });

  it("refuses a database migrated by a newer build", async () => {
    const db = open(await cluster!.createDatabase("newer"));
    await migrate(db);
    await db.query("INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')");
    await expect(migrate(db)).rejects.toBeInstanceOf(ConfigError);
  });

  it("a rollback one version step onto a migrated database is refused, saying which versions and what to do, schema untouched", async () => {
    const db = open(await cluster!.createDatabase("rollback"));
    const latest = MIGRATIONS.at(-1)!.version;
    await migrate(db); // the new release
    const previous = MIGRATIONS.slice(0, -1); // the release before it
    let err: unknown;
    try {
      await migrate(db, { migrations: previous });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe("state.postgres_url");
    const message = (err as Error).message;
    for (const part of [`schema is at version ${latest}`, `up to ${previous.at(-1)!.version}`, "restore the backup", "docs/operations.md"])
      expect(message).toContain(part);
    const rows = await db.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(rows.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    // Upgrading again (the release that migrated it) opens it as usual.
    expect(await migrate(db)).toEqual({ applied: [], version: latest });
  });

  it("an upgrade one version step applies only the new migration to a database of the release before", async () => {
    const db = open(await cluster!.createDatabase("upgrade"));
    const before = await migrate(db, { migrations: MIGRATIONS.slice(0, -1) });
    expect(before.version).toBe(MIGRATIONS.at(-2)!.version);
    expect((await migrate(db)).applied).toEqual([MIGRATIONS.at(-1)!.version]);
  });

  it("state CHECK constraints list exactly the states the code uses", async () => {
    const db = open(cluster!.url);
    await migrate(db);
    const statesOf = async (table: string): Promise<string[]> => {
      const res = await db.query<{ def: string }>(
        "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c'",
        [table],
      );
      const def = res.rows.map((r) => r.def).find((d) => d.includes("state")) ?? "";
      return [...def.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!).sort();
    };
    expect(await statesOf("claims")).toEqual([...CLAIM_STATES].sort());
    expect(await statesOf("orders")).toEqual([...ORDER_STATES].sort());
  });
});
