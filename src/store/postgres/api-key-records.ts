// API keys on PostgreSQL (the ApiKeyRecords port; the api_keys table of migrations/005_catalogue.sql). Each write is
// one statement, resolved once committed (synchronous_commit=on).
import type pg from 'pg';
import type { ApiKeyRecord, ApiKeyRecords } from '../api-key-records.js';
import { migrate } from './migrate.js';

export class PostgresApiKeyRecords implements ApiKeyRecords {
  private constructor(private readonly pool: pg.Pool) {}

  /** Brings the schema up to date (migrate.ts) on a pool the caller owns and closes. */
  static async open(pool: pg.Pool): Promise<PostgresApiKeyRecords> {
    await migrate(pool);
    return new PostgresApiKeyRecords(pool);
  }

  async loadLive(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<ApiKeyRecord>(
      `SELECT id, address, key_hash AS "keyHash", created_at AS "createdAt" FROM api_keys
       WHERE revoked_at IS NULL ORDER BY created_at, seq`,
    );
    return rows;
  }

  async add(k: ApiKeyRecord): Promise<void> {
    await this.pool.query('INSERT INTO api_keys (id, address, key_hash, created_at) VALUES ($1, $2, $3, $4)', [k.id, k.address, k.keyHash, k.createdAt]);
  }

  async revoke(id: string, revokedAt: string, owner?: string): Promise<boolean> {
    const res =
      owner === undefined
        ? await this.pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [revokedAt, id])
        : await this.pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND address = $3 AND revoked_at IS NULL', [revokedAt, id, owner]);
    return (res.rowCount ?? 0) > 0;
  }
}
