// API keys bound to an address, kept through the ApiKeyRecords port (SQLite here, PostgreSQL in store/postgres/).
// Only a SHA-256 of each key is stored.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Db } from '../store/sqlite/db.js';
import type { ApiKeyRecord, ApiKeyRecords } from '../store/api-key-records.js';
import { ok } from '../api/envelope.js';
import { ExchangeError } from '../protocol/errors.js';
import { Address } from '../api/params.js';
import { checksumAddress } from '../protocol/address.js';
import { responses } from '../api/schemas/envelope.js';
import { ApiKeyCreated, ApiKeyRevoked } from '../api/schemas/admin.js';

export interface LiveKey {
  id: string;
  address: string;
}

/** A live key as its owner's listing shows it (never the key itself: only its hash is stored). */
export interface OwnedKey {
  id: string;
  createdAt: string;
}

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** The API keys in the SQLite data dir (migration 2). better-sqlite3 answers synchronously: a write has committed when its promise is made. */
export class SqliteApiKeyRecords implements ApiKeyRecords {
  constructor(private readonly db: Db) {}

  loadLive(): Promise<ApiKeyRecord[]> {
    return attempt(
      () =>
        this.db
          .prepare('SELECT id, address, key_hash AS keyHash, created_at AS createdAt FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, rowid')
          .all() as ApiKeyRecord[],
    );
  }

  add(k: ApiKeyRecord): Promise<void> {
    return attempt(() => {
      this.db.prepare('INSERT INTO api_keys (id, address, key_hash, created_at) VALUES (?, ?, ?, ?)').run(k.id, k.address, k.keyHash, k.createdAt);
    });
  }

  revoke(id: string, revokedAt: string, owner?: string): Promise<boolean> {
    return attempt(() => {
      const res =
        owner === undefined
          ? this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(revokedAt, id)
          : this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND address = ? AND revoked_at IS NULL').run(revokedAt, id, owner);
      return res.changes > 0;
    });
  }
}

function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * The live API keys, all held in memory (loaded at start; an address holds a handful): `keyOf` runs on every
 * authenticated request and answers synchronously. Creating and revoking write the store first, one after the other,
 * and memory follows once the write is durable.
 */
export class ApiKeys {
  /** Live keys by key hash. */
  private readonly byHash = new Map<string, ApiKeyRecord>();
  /** Live keys by id, oldest first. */
  private readonly byId = new Map<string, ApiKeyRecord>();
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(private readonly records: ApiKeyRecords) {}

  static async open(records: ApiKeyRecords): Promise<ApiKeys> {
    const keys = new ApiKeys(records);
    for (const k of await records.loadLive()) keys.remember(k);
    return keys;
  }

  /**
   * Issues a key for `address`. `check`, if given, sees the address's live keys in the same turn as the write (no
   * other create or revoke in between) and may throw to refuse.
   */
  create(address: string, nowIso: string, check?: (live: OwnedKey[]) => void): Promise<{ id: string; apiKey: string; address: string }> {
    return this.serially(async () => {
      const owner = checksumAddress(address);
      check?.(this.liveOf(owner));
      const apiKey = randomBytes(24).toString('base64url');
      const record: ApiKeyRecord = { id: randomUUID(), address: owner, keyHash: hashKey(apiKey), createdAt: nowIso };
      await this.records.add(record);
      this.remember(record);
      return { id: record.id, apiKey, address: owner };
    });
  }

  /** The live keys of an address, however issued (operator or wallet), oldest first. */
  liveOf(address: string): OwnedKey[] {
    const owner = checksumAddress(address);
    return [...this.byId.values()].filter((k) => k.address === owner).map((k) => ({ id: k.id, createdAt: k.createdAt }));
  }

  /** The key's id and checksummed address while it is live, else undefined. */
  keyOf(apiKey: string): LiveKey | undefined {
    const k = this.byHash.get(hashKey(apiKey));
    return k && { id: k.id, address: k.address };
  }

  /** The checksummed address a live key belongs to, or undefined. */
  addressOf(apiKey: string): string | undefined {
    return this.keyOf(apiKey)?.address;
  }

  /** Whether the key with this id was issued and is not revoked. */
  isLive(id: string): boolean {
    return this.byId.has(id);
  }

  /** Revokes a live key; with `owner`, only a key of that address (a wallet revokes only its own). */
  revoke(id: string, nowIso: string, owner?: string): Promise<boolean> {
    return this.serially(async () => {
      const revoked = await this.records.revoke(id, nowIso, owner === undefined ? undefined : checksumAddress(owner));
      const k = this.byId.get(id);
      if (k && (revoked || owner === undefined || k.address === checksumAddress(owner))) this.forget(k);
      return revoked;
    });
  }

  /**
   * Takes the live keys from the store again: the keys other processes of the exchange issued or revoked since
   * (a gateway and the sequencer's process each hold their own copy). Runs between writes, never during one.
   */
  reload(): Promise<void> {
    return this.serially(async () => {
      const live = await this.records.loadLive();
      this.byHash.clear();
      this.byId.clear();
      for (const k of live) this.remember(k);
    });
  }

  private remember(k: ApiKeyRecord): void {
    this.byHash.set(k.keyHash, k);
    this.byId.set(k.id, k);
  }

  private forget(k: ApiKeyRecord): void {
    this.byHash.delete(k.keyHash);
    this.byId.delete(k.id);
  }

  private serially<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }
}

/** How often a process that shares its key store with others (gateways, their sequencer) takes the live keys again. */
export const SHARED_KEYS_RELOAD_MS = 2000;

/** Reloads the live keys every `everyMs`; returns what stops it. */
export function reloadKeysEvery(keys: Pick<ApiKeys, 'reload'>, everyMs: number, onError: (err: unknown) => void): () => void {
  const timer = setInterval(() => keys.reload().catch(onError), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The live key of the request's X-Api-Key, or a 401. */
export function authenticateKey(keys: Pick<ApiKeys, 'keyOf'>, request: FastifyRequest): LiveKey {
  const key = request.headers['x-api-key'];
  if (typeof key !== 'string' || key === '') throw new ExchangeError('MISSING_API_KEY');
  const live = keys.keyOf(key);
  if (!live) throw new ExchangeError('INVALID_API_KEY');
  return live;
}

/** The address of the request's X-Api-Key, or a 401. */
export function authenticateApiKey(keys: Pick<ApiKeys, 'keyOf'>, request: FastifyRequest): string {
  return authenticateKey(keys, request).address;
}

export interface ApiKeyRouteDeps {
  apiKeys: Pick<ApiKeys, 'create' | 'revoke'>;
  now: () => number;
  /** Ends the realtime sessions opened with a key (by its id); returns how many. */
  disconnectKey: (keyId: string) => number;
}

export const apiKeyRoutes: FastifyPluginAsyncTypebox<ApiKeyRouteDeps> = async (app, { apiKeys, now, disconnectKey }) => {
  app.post(
    '/admin/api-keys',
    {
      schema: { tags: ['admin'], body: Type.Object({ address: Address }, { additionalProperties: false }), response: responses(ApiKeyCreated) },
    },
    async (request) => {
      const { address } = request.body;
      return ok(await apiKeys.create(address, new Date(now()).toISOString()));
    },
  );
  app.delete(
    '/admin/api-keys/:id',
    { schema: { tags: ['admin'], params: Type.Object({ id: Type.String({ maxLength: 64 }) }), response: responses(ApiKeyRevoked) } },
    async (request) => {
      const { id } = request.params;
      if (!(await apiKeys.revoke(id, new Date(now()).toISOString()))) {
        throw new ExchangeError('API_KEY_NOT_FOUND', `no live API key ${id}`);
      }
      // Revocation is immediate: realtime sessions opened with the key end now, not when their token expires.
      disconnectKey(id);
      return ok({ id, revoked: true });
    },
  );
};
