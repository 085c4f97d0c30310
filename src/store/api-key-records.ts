// API keys as a store keeps them (the ApiKeyRecords port): SQLite in the data dir (admin/api-keys.ts), PostgreSQL to
// scale (store/postgres/api-key-records.ts). Only a SHA-256 of each key is stored. Declared below admin/ so that a
// store implements it without importing a layer above.

export interface ApiKeyRecord {
  id: string;
  /** Checksummed. */
  address: string;
  /** Hex SHA-256 of the key. */
  keyHash: string;
  /** ISO 8601. */
  createdAt: string;
}

/** Every write resolves once it is durable, and rejects if it is not. */
export interface ApiKeyRecords {
  /** The keys not revoked, oldest first. */
  loadLive(): Promise<ApiKeyRecord[]>;
  add(key: ApiKeyRecord): Promise<void>;
  /** Revokes a live key (with `owner`, only a key of that checksummed address); resolves whether one was. */
  revoke(id: string, revokedAt: string, owner?: string): Promise<boolean>;
}
