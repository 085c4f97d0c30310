// The error catalogue (src/protocol/errors.ts) is the one place error codes are declared: no source file uses a
// code it does not list, and the OpenAPI document lists every code with the HTTP status the API answers it with.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ERRORS, ERROR_CODES, ERRORS } from '../src/protocol/errors.js';
import { httpStatusOfCode } from '../src/api/errors.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';

const ROOT = join(import.meta.dirname, '..');
const SCANNED = ['src', 'packages/sdk/src'];
const CATALOGUE = 'src/protocol/errors.ts';

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(path);
    const isSource = /\.(ts|tsx|mjs)$/.test(e.name) && !/\.test\.ts$|\.generated\.ts$/.test(e.name);
    return isSource && path !== CATALOGUE ? [path] : [];
  });
}

const Q = `['"\`]`;
const CODE = '([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)';
/** Where a string can only be an error code: constructors, code helpers, `errorCode` fields, status maps. */
const CODE_POSITIONS = [
  // (ConfigError's first argument is the setting it names.)
  new RegExp(`\\b(?!ConfigError)\\w*Error\\(\\s*(?:[45]\\d{2}\\s*,\\s*)?${Q}${CODE}${Q}`, 'g'), // new ApiError(409, 'X' / DomainError('X'
  new RegExp(`\\b(?:badRequest|notFound|conflict|forbidden|unauthorized|fail|refuse)\\(\\s*${Q}${CODE}${Q}`, 'g'),
  new RegExp(`\\b\\w*[eE]rrorCode\\w*\\??\\s*(?::\\s*\\w+\\s*)?[:=]\\s*${Q}${CODE}${Q}`, 'g'), // errorCode: 'X', errorCode = 'X'
  new RegExp(`\\[\\s*[45]\\d{2}\\s*,\\s*${Q}${CODE}${Q}`, 'g'), // [409, 'X']
  new RegExp(`\\b[45]\\d{2}\\s*:\\s*${Q}${CODE}${Q}`, 'g'), // 409: 'X'
  new RegExp(`^\\s*${Q}?${CODE}${Q}?\\s*:\\s*[45]\\d{2}\\b`, 'gm'), // X: 409
];
/** Any UPPER_SNAKE string literal, wherever it is passed (`requireSigner(..., 'X')`, `parseWei(..., 'X')`). */
const UPPER_SNAKE = new RegExp(`${Q}([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)${Q}`, 'g');

/** UPPER_SNAKE strings that are not error codes, each with why. Anything else UPPER_SNAKE must be catalogued. */
const NOT_ERROR_CODES: [RegExp, string][] = [
  [/^ODDEX_/, 'environment variables'],
  [/^(FST_ERR_|SQLITE_|ERR_|HPE_)/, "Fastify's, SQLite's and Node's own error codes, which are mapped to catalogue codes"],
  [/^EAI_/, "getaddrinfo's error codes (a host that does not resolve at start-up)"],
  [/^INVALID_MARKET$/, 'a per-order status of POST /orders/new (OrderStatusCode)'],
  [/^(NO_CONTEST|NO_GAME_OR_EVEN)$/, 'settlement outcomes'],
  [/^PG_VERSION$/, "the file naming a PostgreSQL cluster's version (a template cluster is complete once it holds one)"],
];

const catalogued = (code: string) => code in ERRORS || code in CLIENT_ERRORS;

/** `file:line CODE` for every use of an uncatalogued code. */
function uncatalogued(): string[] {
  const found: string[] = [];
  for (const file of SCANNED.flatMap(sources)) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const at = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
    for (const re of CODE_POSITIONS) {
      for (const m of text.matchAll(re)) if (!catalogued(m[1]!)) found.push(`${at(m.index)} ${m[1]}`);
    }
    for (const m of text.matchAll(UPPER_SNAKE)) {
      const code = m[1]!;
      if (!catalogued(code) && !NOT_ERROR_CODES.some(([re]) => re.test(code))) found.push(`${at(m.index)} ${code}`);
    }
  }
  return [...new Set(found)];
}

describe('the error catalogue', () => {
  it('declares every error code used in src/ and packages/sdk/src', () => {
    const scanned = SCANNED.flatMap(sources);
    expect(scanned.length).toBeGreaterThan(100);
    expect(uncatalogued()).toEqual([]);
  });

  it('keeps client-side codes apart from the codes the exchange answers', () => {
    expect(Object.keys(CLIENT_ERRORS).filter((c) => c in ERRORS)).toEqual([]);
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(spec.message, code).not.toBe('');
    }
  });
});

describe('the error codes in /openapi.json', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange();
  });
  afterAll(() => ex?.destroy());

  it('lists every catalogued code with its HTTP status and meaning', async () => {
    const description: string = (await ex.get('/openapi.json')).body.info.description;
    const documented = new Map(
      [...description.matchAll(/^\| ([A-Z][A-Z0-9_]*) \| (\d{3}) \| (.+) \|$/gm)].map((m) => [m[1]!, { status: Number(m[2]), meaning: m[3] }]),
    );
    const missing = ERROR_CODES.filter((code) => {
      const row = documented.get(code);
      return row?.status !== httpStatusOfCode(code) || row.meaning !== ERRORS[code].message;
    });
    expect(missing).toEqual([]);
    expect([...documented.keys()].filter((code) => !(code in ERRORS))).toEqual([]);
  });
});
