/**
 * Brings the schema up to date at open: every migration not yet recorded in `schema_migrations` is
 * applied, in version order, in ONE transaction (PostgreSQL DDL is transactional: a failure leaves
 * the schema as it was). Replicas starting together are serialised by a transaction-scoped advisory
 * lock taken first: the second waits, then finds nothing left to do. That lock is no part of
 * leadership, and being transaction-scoped it also works behind a transaction-pooling proxy.
 */
import { ConfigError } from "../../errors.js";
import { MIGRATIONS, type Migration } from "./migrations.js";
import type { PgDatabase } from "./pgDatabase.js";

/** Advisory lock key of schema changes: "liqschem" in ASCII as a bigint. */
const MIGRATION_LOCK_KEY = "7811899769053799789";

export interface MigrateOptions {
  /** Bound on each statement, waiting for another replica's migration included. */
  timeoutMs?: number;
  migrations?: readonly Migration[];
}

export interface MigrateResult {
  /** Versions this call applied (empty when the schema was already current). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
}

export async function migrate(db: PgDatabase, options: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = [...(options.migrations ?? MIGRATIONS)].sort((a, b) => a.version - b.version);
  return db.transaction(
    async (q) => {
      await q(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::bigint)`);
      await q(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = new Set((await q<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((r) => r.version));
      const known = new Set(migrations.map((m) => m.version));
      const newer = [...done].filter((v) => !known.has(v));
      if (newer.length > 0) {
        // A newer release migrated this database (a rollback): this build's queries may not match
        // the schema, and retrying cannot help, so it is a configuration error (exit 78).
        const latest = Math.max(0, ...known);
        throw new ConfigError(
          "state.postgres_url",
          `the database schema is at version ${Math.max(...done)}, migrated by a newer release of the liquidator ` +
            `(versions ${newer.sort((a, b) => a - b).join(", ")} unknown here); this build knows schema versions up to ${latest} ` +
            "and does not run on a newer schema. Deploy the release that migrated the database (or a newer one), " +
            "or restore the backup taken before the upgrade into an empty database and point state.postgres_url at it " +
            '(docs/operations.md, "Upgrade and rollback")',
        );
      }
      const applied: number[] = [];
      for (const m of migrations) {
        if (done.has(m.version)) continue;
        await q(m.sql);
        await q("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
        applied.push(m.version);
      }
      return { applied, version: migrations.at(-1)?.version ?? 0 };
    },
    { timeoutMs: options.timeoutMs ?? 30_000 },
  );
}
