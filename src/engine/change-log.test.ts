import { describe, expect, it } from 'vitest';
import { ChangeLog } from './change-log.js';

describe('ChangeLog', () => {
  it('gathers a command’s records and touched accounts, and refuses records outside a command', () => {
    const log = new ChangeLog();
    expect(() => log.emit({ type: 'heartbeatExpired', requestor: '0xa', at: 1 })).toThrow();
    log.begin();
    log.emit({ type: 'heartbeatExpired', requestor: '0xa', at: 1 });
    log.touch('0xa');
    log.touch('0xa');
    const records = log.records();
    expect(records).toHaveLength(1);
    expect(log.touched.size).toBe(1);
    log.end();
    expect(records).toHaveLength(1);
    expect(log.touched.size).toBe(0);
  });
});
