// What `npm start` prints: a short readable start-up and no request lines on a terminal, JSON lines otherwise.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { createLoggers, resolveLogFormat } from '../src/log.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = `${process.execPath} --import tsx src/main.ts`;

/**
 * Runs the exchange with demo liquidity (dozens of requests a second), on a pseudo-terminal (util-linux `script`)
 * or a pipe, until `until` shows in its output and then `afterMs` more; returns the output's lines.
 */
function runExchange(opts: { terminal: boolean; env?: Record<string, string>; until: RegExp; afterMs: number }): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddex-terminal-'));
  const { ODDEX_LOG_FORMAT: _ignored, ...inherited } = process.env;
  const env = { ...inherited, ODDEX_DATA_DIR: dataDir, ODDEX_PORT: '0', ODDEX_ADMIN_TOKEN: '', ODDEX_LOG_LEVEL: 'info', ...opts.env };
  const child = opts.terminal
    ? spawn('script', ['-qfec', MAIN, '/dev/null'], { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn('sh', ['-c', `exec ${MAIN}`], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    let stopping = false;
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!stopping && opts.until.test(stripVTControlCharacters(out))) {
        stopping = true;
        setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), opts.afterMs);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
    child.once('exit', () => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      if (!stopping) reject(new Error(`exited before ${opts.until}: ${out.slice(0, 2000)}`));
      // `script` says when its session ends; that line is not the exchange's.
      else resolve(stripVTControlCharacters(out).split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('Session terminated')));
    });
  });
}

describe('log format', () => {
  it('is readable on a terminal and JSON lines otherwise, unless ODDEX_LOG_FORMAT says', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('leaves the HTTP layer’s info lines out of the readable form at info, and shows them at debug', () => {
    const lines = (level: string, format: 'json' | 'pretty') => {
      const written: string[] = [];
      const { log, http } = createLoggers(level, format, { write: (s: string) => written.push(s) });
      http.info('incoming request');
      http.warn('slow client');
      log.info('engine rebuilt');
      return written.map((s) => (format === 'json' ? (JSON.parse(s) as { msg: string }).msg : s.replace(/^\[[\d:]+\] /, '').trim()));
    };
    expect(lines('info', 'pretty')).toEqual(['WARN: slow client', 'INFO: engine rebuilt']);
    expect(lines('debug', 'pretty')).toEqual(['INFO: incoming request', 'WARN: slow client', 'INFO: engine rebuilt']);
    expect(lines('info', 'json')).toEqual(['incoming request', 'slow client', 'engine rebuilt']);
  });
});

describe('npm start’s output', () => {
  it('on a terminal: the page’s URL in the first lines, where the admin token is, warnings, and no request lines', async () => {
    const lines = await runExchange({ terminal: true, until: /demo liquidity running/, afterMs: 3000 });
    const url = /Oddex listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.join('\n'))?.[1];
    expect(url).toBeDefined();
    // First start: the executor address, the admin token's warning and the engine's rebuild come before it.
    const first = lines.slice(0, 12).join('\n');
    expect(first).toContain(`Web page       ${url}/`);
    expect(first).toContain(`API docs       ${url}/docs`);
    expect(first).toMatch(/Admin token {4}in \/.*\/admin-token/);
    expect(first).toMatch(/WARN: generated an admin token/);
    expect(first).toContain('Demo           demo markets, demo market makers quoting them and a demo bettor');
    expect(lines.some((l) => l.includes('demo liquidity running'))).toBe(true);
    // Demo liquidity made hundreds of requests meanwhile; none of them is a line here.
    expect(lines.filter((l) => /request completed|incoming request|"level"/.test(l))).toEqual([]);
    expect(lines.length).toBeLessThan(30);
  }, 60_000);

  // Two starts of the exchange, each until its demo liquidity runs: 18 s in CI beside another test file.
  it('not on a terminal, or with ODDEX_LOG_FORMAT=json: JSON lines, requests at info', async () => {
    for (const run of [{ terminal: false }, { terminal: true, env: { ODDEX_LOG_FORMAT: 'json' } }]) {
      const lines = await runExchange({ ...run, until: /demo liquidity running/, afterMs: 500 });
      const records = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(lines.filter((l) => !l.startsWith('{'))).toEqual([expect.stringMatching(/^Oddex listening on http:\/\/127\.0\.0\.1:\d+$/)]);
      expect(records.filter((r) => r.msg === 'request completed').length).toBeGreaterThan(10);
      expect(records.find((r) => r.msg === 'request completed')!.level).toBe(30);
    }
  }, 90_000);
});
