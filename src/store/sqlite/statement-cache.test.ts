import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StatementCache } from './statement-cache.js';

describe('StatementCache', () => {
  it('prepares a SQL text once and drops the least recently used past its capacity', () => {
    const db = new Database(':memory:');
    let prepared = 0;
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => (prepared++, prepare(sql))) as typeof db.prepare;
    const cache = new StatementCache(db, 2);
    const a = cache.get('SELECT 1');
    expect(cache.get('SELECT 1')).toBe(a);
    cache.get('SELECT 2');
    cache.get('SELECT 1'); // now 'SELECT 2' is the least recently used
    cache.get('SELECT 3');
    expect(cache.size).toBe(2);
    expect(prepared).toBe(3);
    expect(cache.get('SELECT 1')).toBe(a);
    expect(prepared).toBe(3);
    cache.get('SELECT 2');
    expect(prepared).toBe(4);
    expect(cache.get('SELECT 1').pluck().get()).toBe(1);
    db.close();
  });
});
