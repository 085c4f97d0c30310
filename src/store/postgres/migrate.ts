// Applies the schema's SQL files (./migrations/NNN_name.sql, in name order) that the database has not applied yet,
// each in its own transaction with its row in schema_migrations. An advisory lock serializes processes migrating
// the same database at once: the second waits, then finds the files applied.
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/** The advisory lock key of migrations (the writer's lock is another: writer-fence.ts). */
const MIGRATION_LOCK = 0x0dde_0001;

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

export interface MigrationFile {
  /** The file name without `.sql`, e.g. `001_journal`. */
  version: string;
  sql: string;
}

export function migrationFiles(): MigrationFile[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.slice(0, -4), sql: readFileSync(new URL(f, MIGRATIONS_DIR), 'utf8') }));
}

/**
 * Pools this process brought up to date with every migration file: the stores opened on one pool at start-up each
 * call migrate, and after the first the rest find nothing to do (each check took the advisory lock and two
 * statements, one after the other).
 */
const upToDate = new WeakSet<pg.Pool>();

/** Brings the schema up to date; returns the versions applied now. */
export async function migrate(pool: pg.Pool, files?: readonly MigrationFile[]): Promise<string[]> {
  if (files === undefined && upToDate.has(pool)) return [];
  const applied = await migrateFiles(pool, files ?? migrationFiles());
  if (files === undefined) upToDate.add(pool);
  return applied;
}

async function migrateFiles(pool: pg.Pool, files: readonly MigrationFile[]): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const done = new Set((await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      const applied: string[] = [];
      for (const file of files) {
        if (done.has(file.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(file.sql);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [file.version]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${file.version} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
        applied.push(file.version);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
