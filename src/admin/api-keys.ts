// API keys bound to an address. Only a SHA-256 of each key is stored.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Db } from '../store/sqlite/db.js';
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

export class ApiKeys {
  /** Live keys only: caching misses would let a flood of invented keys grow memory without bound. */
  private readonly cache = new Map<string, LiveKey>();
  private readonly lookup;
  private readonly liveById;
  private readonly liveOfAddress;
  constructor(private readonly db: Db) {
    this.lookup = db.prepare('SELECT id, address FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL');
    this.liveById = db.prepare('SELECT 1 FROM api_keys WHERE id = ? AND revoked_at IS NULL');
    this.liveOfAddress = db.prepare(
      'SELECT id, created_at AS createdAt FROM api_keys WHERE address = ? AND revoked_at IS NULL ORDER BY created_at, rowid',
    );
  }

  create(address: string, nowIso: string): { id: string; apiKey: string; address: string } {
    const id = randomUUID();
    const apiKey = randomBytes(24).toString('base64url');
    const owner = checksumAddress(address);
    this.db
      .prepare('INSERT INTO api_keys (id, address, key_hash, created_at) VALUES (?, ?, ?, ?)')
      .run(id, owner, hashKey(apiKey), nowIso);
    return { id, apiKey, address: owner };
  }

  /** The live keys of an address, however issued (operator or wallet), oldest first. */
  liveOf(address: string): OwnedKey[] {
    return this.liveOfAddress.all(checksumAddress(address)) as OwnedKey[];
  }

  /** The key's id and checksummed address while it is live, else undefined. */
  keyOf(apiKey: string): LiveKey | undefined {
    const h = hashKey(apiKey);
    const cached = this.cache.get(h);
    if (cached !== undefined) return cached;
    const row = this.lookup.get(h) as LiveKey | undefined;
    if (row) this.cache.set(h, row);
    return row;
  }

  /** The checksummed address a live key belongs to, or undefined. */
  addressOf(apiKey: string): string | undefined {
    return this.keyOf(apiKey)?.address;
  }

  /** Whether the key with this id was issued and is not revoked. */
  isLive(id: string): boolean {
    return this.liveById.get(id) !== undefined;
  }

  /** Revokes a live key; with `owner`, only a key of that address (a wallet revokes only its own). */
  revoke(id: string, nowIso: string, owner?: string): boolean {
    const res = owner === undefined
      ? this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(nowIso, id)
      : this.db
          .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND address = ? AND revoked_at IS NULL')
          .run(nowIso, id, checksumAddress(owner));
    this.cache.clear();
    return res.changes > 0;
  }
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
      return ok(apiKeys.create(address, new Date(now()).toISOString()));
    },
  );
  app.delete(
    '/admin/api-keys/:id',
    { schema: { tags: ['admin'], params: Type.Object({ id: Type.String({ maxLength: 64 }) }), response: responses(ApiKeyRevoked) } },
    async (request) => {
      const { id } = request.params;
      if (!apiKeys.revoke(id, new Date(now()).toISOString())) {
        throw new ExchangeError('API_KEY_NOT_FOUND', `no live API key ${id}`);
      }
      // Revocation is immediate: realtime sessions opened with the key end now, not when their token expires.
      disconnectKey(id);
      return ok({ id, revoked: true });
    },
  );
};
