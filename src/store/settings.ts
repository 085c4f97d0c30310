// Small named facts a process keeps across restarts (the Settings port): the SQLite data dir's settings table, or
// PostgreSQL's store_settings (store/postgres/settings.ts).

export interface Settings {
  /**
   * The value stored under `key`; if none is, stores `value` first. Atomic: processes sharing the store that race on
   * an unset key all get the one value that was stored.
   */
  getOrPut(key: string, value: string): Promise<string>;
}
