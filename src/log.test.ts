// A failure repeated in a loop is logged once, then counted: a full disk made every retry (the projector's, the
// checkpoint thread's, the expiry sweep's) a line of its own, about 1,200 a minute.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLoggers } from './log.js';

function collected() {
  const lines: Record<string, unknown>[] = [];
  const { log } = createLoggers('info', 'json', { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { log, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('repeated log lines', () => {
  it('logs a repeated identical error once, then one line with its count at the end of the minute', () => {
    vi.useFakeTimers();
    const { log, lines } = collected();
    for (let i = 0; i < 600; i++) {
      log.error({ err: new Error('database or disk is full') }, 'read models not projected');
      vi.advanceTimersByTime(100);
    }
    // A minute of it: the first line, and the count of the 599 identical ones after it.
    expect(lines.map((l) => [l.msg, l.repeated])).toEqual([
      ['read models not projected', undefined],
      ['read models not projected (repeated 599 more times in 60 s)', 599],
    ]);
    expect((lines[1]!.err as { message: string }).message).toBe('database or disk is full');
    // Once it stops, nothing more; once it comes back after the minute, it is logged again at once.
    vi.advanceTimersByTime(120_000);
    expect(lines).toHaveLength(2);
    log.error({ err: new Error('database or disk is full') }, 'read models not projected');
    expect(lines).toHaveLength(3);
  });

  it('logs lines that differ in their message, fields or error each, and never holds back requests (info)', () => {
    vi.useFakeTimers();
    const { log, lines } = collected();
    log.error({ err: new Error('disk full') }, 'commit failed');
    log.error({ err: new Error('disk I/O error') }, 'commit failed');
    log.warn({ fillHash: '0x1' }, 'fill not taken');
    log.warn({ fillHash: '0x2' }, 'fill not taken');
    log.warn('a plain warning');
    log.warn('a plain warning');
    log.child({ module: 'demo' }).warn('a plain warning');
    for (let i = 0; i < 3; i++) log.info({ reqId: 'req-1' }, 'request completed');
    expect(lines.map((l) => l.msg)).toEqual([
      'commit failed',
      'commit failed',
      'fill not taken',
      'fill not taken',
      'a plain warning',
      'a plain warning',
      'request completed',
      'request completed',
      'request completed',
    ]);
    vi.advanceTimersByTime(60_000);
    expect(lines.at(-1)).toMatchObject({ msg: 'a plain warning (repeated 1 more time in 60 s)', repeated: 1 });
    expect(lines).toHaveLength(10);
  });
});
