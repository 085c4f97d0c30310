// A connection pool for the PostgreSQL stores of the catalogue, API keys and settings, and the transaction helper
// their all-or-nothing writes use.
import pg from 'pg';

/**
 * synchronous_commit=on whatever the server's default: a write resolves only once it is on the server's disk. With
 * `genericPlans`, a prepared statement keeps one plan for every value (plan_cache_mode=force_generic_plan): only for
 * statements whose plan does not depend on their values (prepared-listings.ts).
 */
export function openPool(connectionString: string, max = 4, opts: { genericPlans?: boolean } = {}): pg.Pool {
  const options = '-c synchronous_commit=on' + (opts.genericPlans ? ' -c plan_cache_mode=force_generic_plan' : '');
  const pool = new pg.Pool({ connectionString, max, options });
  // A connection's failure (a server restart, a killed backend) is reported by the query it fails, or the next one
  // that needs a connection: not as an uncaught error event, idle (the pool's) or checked out (the client's).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it rejects. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
      // The connection is gone (or in an unknown state): drop it rather than give it back to the pool.
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
