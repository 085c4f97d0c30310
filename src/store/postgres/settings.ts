// Named settings on PostgreSQL (the Settings port), in store_settings (migrations/001_journal.sql), which every
// process of the exchange shares: the first to store a value wins and the others read it.
import type pg from 'pg';
import type { Settings } from '../settings.js';
import { migrate } from './migrate.js';

export class PostgresSettings implements Settings {
  private constructor(private readonly pool: pg.Pool) {}

  /** Brings the schema up to date (migrate.ts) on a pool the caller owns and closes. */
  static async open(pool: pg.Pool): Promise<PostgresSettings> {
    await migrate(pool);
    return new PostgresSettings(pool);
  }

  async getOrPut(key: string, value: string): Promise<string> {
    // The stored value if there is one, else ours if our insert wins. A row another process commits while this
    // statement runs is neither inserted over nor visible to it (READ COMMITTED): asking again then finds it.
    for (let attempt = 0; attempt < 3; attempt++) {
      const { rows } = await this.pool.query<{ value: string }>(
        `WITH inserted AS (
           INSERT INTO store_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value
         )
         SELECT value FROM inserted UNION ALL SELECT value FROM store_settings WHERE key = $1`,
        [key, value],
      );
      if (rows[0]) return rows[0].value;
    }
    throw new Error(`setting ${key}: neither stored nor found`);
  }
}
