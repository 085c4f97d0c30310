// fast-check generators of requests that are broken on purpose. Each case applies one "breaker" chosen among
// those that can apply to the route, and every breaker is invalid by construction or proven invalid against the
// server's own schema (fuzz-routes.ts); the rest of the request is plausible values from a pool of real ones
// (markets, makers, orders) mixed with noise, so the broken part is reached with everything else looking real.
import fc from 'fast-check';
import type { RawRequest } from './fuzz-http.js';
import { schemaAccepts, type JsonSchema, type ParamSpec, type RouteSpec } from './fuzz-routes.js';

export interface FuzzPool {
  marketHashes: string[];
  eventIds: string[];
  addresses: string[];
  orderHashes: string[];
  fillHashes: string[];
  leagueIds: number[];
  sportIds: number[];
  /** Teams of the catalogue (fixtures name two). */
  teamIds?: number[];
  baseToken: string;
  executor: string;
  adminToken: string;
  /** A live API key of addresses[0]. */
  apiKey: string;
  nowSeconds: number;
  maxQueryBytes: number;
  maxBodyBytes: number;
}

export interface FuzzCase {
  /** What was broken (for the failure report). */
  breaker: string;
  request: RawRequest;
}

type Arb<T = unknown> = fc.Arbitrary<T>;

const HEX = '0123456789abcdef';
const hex = (digits: number) => fc.string({ unit: fc.constantFrom(...HEX), minLength: digits, maxLength: digits }).map((h) => '0x' + h);
const ODDS_STEP = 125n * 10n ** 15n;
const UINT256_MAX = (1n << 256n) - 1n;

/** Strings that break parsers and validators: unicode edge cases, NUL, lone surrogates, huge and odd numbers. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '😀😀',
  '\u202eevil',
  '\ufeff',
  'e\u0301',
  'Ａ',
  '٣',
  '\n',
  '\r\n',
  '-1',
  '-0',
  '1.5',
  '1e18',
  '1e999',
  'NaN',
  'Infinity',
  '0x',
  '0xZZ',
  '0X10',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>',
  (UINT256_MAX + 1n).toString(),
  '9'.repeat(100),
];
const nastyString: Arb<string> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const hugeNumbers = fc.constantFrom(1e21, -1e21, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308, 4294967296, -1, 0.1, -0.5, 1.5);

/** A small arbitrary JSON value: noise for fields nobody asked for and for the wrong-type breaker. */
const junkJson: Arb<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    nastyString,
    hugeNumbers,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('v'), { maxKeys: 3 }),
  ),
})).v;

// ---- plausible values ------------------------------------------------------------------------------

const pick = <T>(values: readonly T[], fallback: Arb<T>): Arb<T> => (values.length > 0 ? fc.constantFrom(...values) : fallback);
const commaList = (values: readonly string[], fallback: Arb<string>) =>
  values.length > 0 ? fc.subarray([...values], { minLength: 1 }).map((xs) => xs.join(',')) : fallback;

const ADDRESS_FIELDS = new Set(['maker', 'bettor', 'address', 'requestor', 'taker', 'from', 'to', 'affiliate']);

/** Values the API would recognise, chosen by field name; undefined when the name says nothing. */
function byName(name: string, s: JsonSchema, pool: FuzzPool): Arb | undefined {
  const isString = s.type === 'string';
  if (s.type === 'array' && name === 'orderHashes') return fc.subarray(pool.orderHashes, { minLength: 1 });
  if (!isString) {
    if (s.type !== 'integer') return undefined;
    if (name === 'leagueId') return pick(pool.leagueIds, fc.nat(1000));
    if (name === 'sportId') return pick(pool.sportIds, fc.nat(100));
    if (name === 'teamOneId' || name === 'teamTwoId') return pick(pool.teamIds ?? [], fc.nat(1000));
    if (name === 'timestamp') return fc.constant(pool.nowSeconds);
    if (name === 'expiry' || name === 'apiExpiry') return fc.constant(pool.nowSeconds + 3600);
    if (name === 'timeoutSeconds') return fc.integer({ min: 1, max: 3600 });
    if (name === 'oddsSlippage') return fc.integer({ min: 0, max: 100 });
    return undefined;
  }
  if (name === 'marketHash' || name === 'market') return fc.oneof(pick(pool.marketHashes, hex(64)), hex(64));
  if (name === 'marketHashes') return commaList(pool.marketHashes, hex(64));
  if (name === 'eventId' || name === 'exchangeEventId') return pick(pool.eventIds, fc.constant('event-1'));
  if (name === 'exchangeEventIds') return commaList(pool.eventIds, fc.constant('event-1'));
  if (ADDRESS_FIELDS.has(name)) return pick(pool.addresses, hex(40));
  if (name === 'baseToken') return fc.constant(pool.baseToken);
  if (name === 'executor') return fc.constant(pool.executor);
  if (name === 'orderHashes') return commaList(pool.orderHashes, hex(64));
  if (name === 'fillHash') return pick(pool.fillHashes, hex(64));
  if (name === 'leagueIds') return commaList(pool.leagueIds.map(String), fc.constant('1'));
  if (name === 'sportIds') return commaList(pool.sportIds.map(String), fc.constant('1'));
  if (name === 'amount' || name === 'stakeWei' || name === 'totalBetSize') return fc.bigInt(1n, 10n ** 12n).map(String);
  if (name === 'percentageOdds' || name === 'desiredOdds') return fc.bigInt(1n, 799n).map((k) => (k * ODDS_STEP).toString());
  if ((name === 'salt' || name === 'fillSalt') && !s.pattern) return fc.bigInt(0n, UINT256_MAX).map(String);
  if (name === 'signature' || name === 'takerSig') return hex(130);
  if (name === 'query') return fc.constantFrom('Lakers', 'United', 'Real', 'abc');
  if (name === 'id') return fc.uuid();
  return undefined;
}

function bySchema(s: JsonSchema, pool: FuzzPool, name: string): Arb {
  const enumValues = s.enum ?? s.anyOf?.flatMap((a) => a.enum ?? []);
  if (enumValues && enumValues.length > 0) return fc.constantFrom(...enumValues);
  switch (s.type) {
    case 'string':
      if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? 20, 20)) });
    case 'integer': {
      const min = BigInt(Math.max(s.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER));
      const max = BigInt(Math.min(s.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER));
      return fc.bigInt(min, max).map(Number);
    }
    case 'number':
      return fc.constantFrom(-2.5, -1, 0, 0.5, 1.5, 2.25, 3);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const min = s.minItems ?? 0;
      return fc.array(plausible(name, s.items ?? {}, pool), { minLength: min, maxLength: Math.max(min, Math.min(s.maxItems ?? 3, 3)) });
    }
    case 'object':
      return plausibleObject(s, pool);
    default:
      return junkJson;
  }
}

export function plausible(name: string, s: JsonSchema, pool: FuzzPool): Arb {
  return byName(name, s, pool) ?? bySchema(s, pool, name);
}

function plausibleObject(s: JsonSchema, pool: FuzzPool): Arb<Record<string, unknown>> {
  const props = s.properties ?? {};
  const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, plausible(k, v, pool)]));
  return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) }) as Arb<Record<string, unknown>>;
}

// ---- schema-breaking values ----------------------------------------------------------------------

function wrongType(s: JsonSchema): Arb {
  switch (s.type) {
    case 'string':
      return fc.oneof(fc.integer(), hugeNumbers, fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));
    case 'integer':
    case 'number':
      return fc.oneof(fc.constantFrom('5', '1e3', '', 'NaN', 'Infinity'), fc.boolean(), fc.constant(null), fc.constant([1]), fc.constant({}));
    case 'boolean':
      return fc.constantFrom('true', 'false', 1, 0, null, [], {}, 'yes');
    case 'array':
      return fc.oneof(fc.constant({}), nastyString, fc.integer(), fc.constant(null));
    case 'object':
      return fc.oneof(fc.constant([]), fc.array(junkJson, { maxLength: 2 }), nastyString, fc.integer(), fc.constant(null), fc.boolean());
    default:
      return junkJson;
  }
}

/** A value meant to violate `s`; the caller proves it does with the server's schema (schemaAccepts). */
function breakValue(name: string, s: JsonSchema, pool: FuzzPool): Arb {
  const options: Arb[] = [wrongType(s)];
  const enumValues = s.enum ?? s.anyOf?.flatMap((a) => a.enum ?? []);
  if (s.type === 'string') {
    if (s.pattern) {
      options.push(
        nastyString,
        hex(63),
        hex(41),
        hex(131),
        fc.tuple(plausible(name, s, pool), fc.constantFrom('\u0000', '\ud800', 'g', ' ', 'é')).map(([v, junk]) => `${String(v)}${junk}`),
        plausible(name, s, pool).map((v) => String(v).replace(/^0x/, '')),
        plausible(name, s, pool).map((v) => String(v).replace(/[0-9a-f]$/i, 'G')),
      );
    }
    if (s.maxLength !== undefined) {
      const max = s.maxLength;
      options.push(fc.oneof(fc.string({ minLength: max + 1, maxLength: max + 40 }), fc.constant('x'.repeat(max + 1)), fc.constant('€'.repeat(max + 1))));
    }
    if (s.minLength !== undefined && s.minLength > 0) options.push(fc.string({ maxLength: s.minLength - 1 }));
    if (enumValues) options.push(nastyString, fc.constantFrom(...enumValues.map((v) => String(v).toLowerCase() + 'x')));
  }
  if (s.type === 'integer' || s.type === 'number') {
    if (s.type === 'integer') options.push(fc.constantFrom(0.5, 1.5, -2.25, 1e-9));
    if (s.minimum !== undefined) options.push(fc.constantFrom(s.minimum - 1, s.minimum - 1e9, -1e21, Number.MIN_SAFE_INTEGER));
    if (s.maximum !== undefined) options.push(fc.constantFrom(s.maximum + 1, s.maximum + 1e9, 1e21, 1e308));
  }
  if (s.type === 'boolean') options.push(fc.constantFrom('TRUE', 'null', 2, -1));
  if (s.type === 'array') {
    const items = s.items ?? {};
    if (s.minItems !== undefined && s.minItems > 0) options.push(fc.constant([]));
    if (s.maxItems !== undefined && s.maxItems <= 1000) {
      options.push(plausible(name, items, pool).map((item) => Array.from({ length: s.maxItems! + 1 }, () => item)));
    }
    options.push(
      fc
        .tuple(fc.array(plausible(name, items, pool), { minLength: 0, maxLength: 2 }), breakValue(name, items, pool), fc.nat())
        .map(([xs, bad, at]) => {
          const out = [...xs];
          out.splice(at % (out.length + 1), 0, bad);
          return out;
        }),
    );
  }
  if (s.type === 'object') options.push(breakObject(s, pool));
  return fc.oneof(...options);
}

function breakObject(s: JsonSchema, pool: FuzzPool): Arb<unknown> {
  const props = s.properties ?? {};
  const keys = Object.keys(props);
  const required = (s.required ?? []).filter((k) => k in props);
  const options: Arb[] = [];
  if (required.length > 0) {
    options.push(
      fc.tuple(plausibleObject(s, pool), fc.constantFrom(...required)).map(([o, k]) => {
        const copy = { ...o };
        delete copy[k];
        return copy;
      }),
    );
  }
  if (s.additionalProperties === false) {
    const extraKey = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('__proto__x', 'constructorX', '\u0000', '😀')).filter((k) => !(k in props));
    options.push(fc.tuple(plausibleObject(s, pool), extraKey, junkJson).map(([o, k, v]) => ({ ...o, [k]: v })));
  }
  if (keys.length > 0) {
    options.push(
      fc
        .constantFrom(...keys)
        .chain((k) => fc.tuple(plausibleObject(s, pool), fc.constant(k), breakValue(k, props[k]!, pool)))
        .map(([o, k, bad]) => ({ ...o, [k]: bad })),
    );
  }
  options.push(wrongType({ type: 'object' }));
  return fc.oneof(...options);
}

/** Values that pass the schema but not the route's own parsing, by field name (wei, odds, salts, times, tokens). */
const SEMANTIC_BREAKS: Record<string, readonly unknown[]> = {
  amount: ['0', '00', '-1', '1.5', '1e6', '0x10', ' 1', '', '１', (UINT256_MAX + 1n).toString(), '9'.repeat(80)],
  stakeWei: ['0', '-5', '0.5', '1e6', '0x10', '', '999999', (UINT256_MAX + 1n).toString()],
  desiredOdds: ['0', '-1', '1.5', '100000000000000000000', '100000000000000000001', '', 'abc'],
  totalBetSize: ['0', '1', (UINT256_MAX + 1n).toString()],
  percentageOdds: ['0', '1', '100000000000000000000', '99999999999999999999', (UINT256_MAX + 1n).toString()],
  salt: ['-1', '1.5', '0xZZ', '', '0x', (UINT256_MAX + 1n).toString(), '0x1' + '0'.repeat(64)],
  fillSalt: ['-1', '1.5', '0xZZ', '', (UINT256_MAX + 1n).toString(), '0x1' + '0'.repeat(64)],
  oddsSlippage: [-1, 101, 1e15, -1e15],
  timeoutSeconds: [-1, 3601, 1e12, -1e12],
  expiry: [0, 1, 1_000_000],
  apiExpiry: [0, 1, 1_000_000],
  executor: ['0x0000000000000000000000000000000000000001'],
  baseToken: ['0x0000000000000000000000000000000000000002'],
};

/** Paths (through objects and arrays) to every field of `value` that SEMANTIC_BREAKS knows how to break. */
function semanticTargets(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => semanticTargets(v, [...path, i]));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(k in SEMANTIC_BREAKS ? [[...path, k]] : []),
    ...semanticTargets(v, [...path, k]),
  ]);
}

function setAt(root: unknown, path: (string | number)[], v: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = v;
  return copy;
}

// ---- encoding --------------------------------------------------------------------------------------

/** What the server will see after decoding: lone surrogates cannot be UTF-8 and become U+FFFD. */
const asSentText = (s: string) => Buffer.from(s, 'utf8').toString('utf8');
/** Percent-encodes every byte outside the unreserved set. */
const percentEncode = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0'))).join('');
/** Percent-encoded bytes that are not UTF-8 (or decode to NUL). */
const BAD_BYTES = ['%FF', '%ED%A0%80', '%C0%80', '%00', '%E2%82', '%F8%88%80%80%80'];

type QueryValues = Record<string, string | string[]>;

function queryString(q: QueryValues, rawTail = ''): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) for (const item of Array.isArray(v) ? v : [v]) parts.push(`${percentEncode(k)}=${percentEncode(item)}`);
  const text = parts.join('&') + rawTail;
  return text ? `?${text}` : '';
}

const queryText = (v: unknown) => asSentText(typeof v === 'string' ? v : JSON.stringify(v));

/** Plausible values for a random subset of the route's query parameters, plus unknown ones. */
function plausibleQuery(route: RouteSpec, pool: FuzzPool): Arb<QueryValues> {
  const model = Object.fromEntries(route.query.map((p) => [p.name, plausible(p.name, p.schema, pool).map(queryText)]));
  return fc
    .tuple(
      fc.record(model, { requiredKeys: [] }) as Arb<Record<string, string>>,
      fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }).map((k) => 'zz' + k), nastyString.map(asSentText), { maxKeys: 2 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

const hasQueryConstraint = (s: JsonSchema) =>
  s.type !== 'string' || s.pattern !== undefined || s.maxLength !== undefined || (s.minLength ?? 0) > 1 || s.enum !== undefined || s.anyOf !== undefined;

function queryBreakValue(p: ParamSpec, pool: FuzzPool): Arb<string> {
  return fc
    .oneof(
      breakValue(p.name, p.schema, pool).map(queryText),
      fc.constantFrom('abc', '1.5', '', 'NaN', '-1', '1e999', '0x1g', 'maybe', 'TRUE', '2', '٣', '+-1'),
      nastyString.map(asSentText),
      hugeNumbers.map(String),
    )
    .map(asSentText);
}

// ---- headers -------------------------------------------------------------------------------------

const BAD_ADMIN_AUTH = (token: string): Record<string, string>[] => [
  {},
  { authorization: 'Bearer wrong-token' },
  { authorization: 'Bearer ' },
  { authorization: 'Bearer' },
  { authorization: token },
  { authorization: `bearer ${token}` },
  { authorization: `Basic ${Buffer.from(`admin:${token}`).toString('base64')}` },
  { authorization: `Bearer ${token}x` },
  { authorization: `Bearer ${token.slice(0, -1)}` },
  { authorization: `Bearer  ${token}` },
  { 'x-api-key': token },
  { 'x-admin-token': token },
  { cookie: `token=${token}` },
];
const BAD_API_KEYS = (pool: FuzzPool): Record<string, string>[] => [
  {},
  { 'x-api-key': '' },
  { 'x-api-key': 'not-a-key' },
  { 'x-api-key': pool.apiKey + 'x' },
  { 'x-api-key': pool.apiKey.slice(1) },
  { 'x-api-key': pool.adminToken },
  { authorization: `Bearer ${pool.apiKey}` },
  { 'x-api-key': 'ÿÿÿÿ' },
];

const latin1Noise = fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_/=;,\t'.split(''), 'é', 'ÿ'), maxLength: 30 });
const noiseHeaders: Arb<Record<string, string>> = fc.dictionary(
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'.split('')), minLength: 1, maxLength: 10 }).map((k) => `x-fuzz-${k}`),
  latin1Noise.map((v) => v.trim()),
  { maxKeys: 2 },
);

// ---- the cases -----------------------------------------------------------------------------------

interface Parts {
  method: string;
  pathValues: Record<string, string>;
  /** Raw path (overrides pathValues) when a breaker needs bytes that are not UTF-8. */
  rawPath?: string;
  query: QueryValues;
  rawQueryTail?: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

function buildPath(route: RouteSpec, parts: Parts): string {
  const path = parts.rawPath ?? route.template.replace(/\{(\w+)\}/g, (_m, name: string) => percentEncode(parts.pathValues[name] ?? ''));
  return path + queryString(parts.query, parts.rawQueryTail);
}

const validAuth = (route: RouteSpec, pool: FuzzPool): Record<string, string> => ({
  ...(route.admin ? { authorization: `Bearer ${pool.adminToken}` } : {}),
  ...(route.apiKey ? { 'x-api-key': pool.apiKey } : {}),
});

const JSON_TYPES = { 'content-type': 'application/json' };

/** The plausible request every breaker starts from. */
function baseParts(route: RouteSpec, pool: FuzzPool): Arb<Parts> {
  const pathModel = Object.fromEntries(route.pathParams.map((p) => [p.name, plausible(p.name, p.schema, pool).map((v) => asSentText(String(v)))]));
  return fc
    .record({
      pathValues: fc.record(pathModel) as Arb<Record<string, string>>,
      query: plausibleQuery(route, pool),
      noise: noiseHeaders,
      body: route.body ? plausible('body', route.body, pool) : fc.constant(undefined),
    })
    .map(({ pathValues, query, noise, body }) => ({
      method: route.method,
      pathValues,
      query,
      headers: { ...noise, ...validAuth(route, pool), ...(body !== undefined ? JSON_TYPES : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }));
}

const MALFORMED_JSON = [
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '{"a":1} // comment',
  '{"a":"\\x41"}',
  '{"a":"line\nbreak"}',
  '{"a":"nul\u0000"}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":+1}',
  '[1,2',
  '{"a":1}{"b":2}',
  '{"a" 1}',
  'nul',
  'tru',
  '"unterminated',
];

type Breaker = { name: string; weight: number; arb: Arb<Parts> };

function breakers(route: RouteSpec, pool: FuzzPool): Breaker[] {
  const base = baseParts(route, pool);
  const out: Breaker[] = [];
  const add = (name: string, weight: number, arb: Arb<Parts>) => out.push({ name, weight, arb });
  const isPost = route.method === 'POST';

  if (route.admin) {
    add('auth: no or wrong admin token', 30, fc.tuple(base, fc.constantFrom(...BAD_ADMIN_AUTH(pool.adminToken))).map(([p, auth]) => withAuth(p, auth)));
  }
  if (route.apiKey) {
    add('auth: no or wrong API key', 20, fc.tuple(base, fc.constantFrom(...BAD_API_KEYS(pool))).map(([p, auth]) => withAuth(p, auth)));
  }

  const otherMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'TRACE'].filter((m) => !route.methodsAtPath.includes(m));
  add('method not routed', 6, fc.tuple(base, fc.constantFrom(...otherMethods)).map(([p, method]) => ({ ...p, method })));
  add(
    'path suffix',
    4,
    fc.tuple(base, fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), nastyString)).map(([p, seg]) => ({
      ...p,
      rawPath: buildPath(route, { ...p, query: {} }) + '/~' + percentEncode(seg),
    })),
  );
  add(
    'query string too long',
    2,
    base.map((p) => ({ ...p, rawQueryTail: `${Object.keys(p.query).length ? '&' : ''}zz=${'a'.repeat(pool.maxQueryBytes + 1)}` })),
  );

  for (const param of route.pathParams) {
    add(
      `path parameter ${param.name} breaks its schema`,
      8,
      fc
        .tuple(base, breakValue(param.name, param.schema, pool).map((v) => asSentText(typeof v === 'string' ? v : JSON.stringify(v))))
        .map(([p, bad]) => ({ ...p, pathValues: { ...p.pathValues, [param.name]: bad } }))
        .filter((p) => !schemaAccepts('path', route, p.pathValues)),
    );
    add(
      `path parameter ${param.name} has bytes that are not UTF-8`,
      3,
      fc.tuple(base, fc.constantFrom(...BAD_BYTES)).map(([p, bytes]) => ({
        ...p,
        rawPath: route.template.replace(/\{(\w+)\}/g, (_m, name: string) =>
          name === param.name ? percentEncode(p.pathValues[name] ?? '') + bytes : percentEncode(p.pathValues[name] ?? ''),
        ),
      })),
    );
    add(
      `path parameter ${param.name} is too long`,
      1,
      fc.tuple(base, fc.integer({ min: 101, max: 3000 })).map(([p, n]) => ({ ...p, pathValues: { ...p.pathValues, [param.name]: 'f'.repeat(n) } })),
    );
  }

  for (const param of route.query) {
    if (hasQueryConstraint(param.schema)) {
      add(
        `query ${param.name} breaks its schema`,
        6,
        fc
          .tuple(base, queryBreakValue(param, pool))
          .map(([p, bad]) => ({ ...p, query: { ...p.query, [param.name]: bad } }))
          .filter((p) => !schemaAccepts('query', route, p.query)),
      );
    }
    if (param.schema.pattern) {
      add(
        `query ${param.name} has bytes that are not UTF-8`,
        2,
        fc.tuple(base, fc.constantFrom(...BAD_BYTES)).map(([p, bytes]) => {
          const { [param.name]: _dropped, ...rest } = p.query;
          return { ...p, query: rest, rawQueryTail: `&${param.name}=0x${bytes}` };
        }),
      );
    }
    if (param.schema.type !== 'array') {
      add(
        `query ${param.name} repeated`,
        3,
        fc
          .tuple(base, fc.array(plausible(param.name, param.schema, pool).map(queryText), { minLength: 2, maxLength: 4 }))
          .map(([p, values]) => ({ ...p, query: { ...p.query, [param.name]: values } }))
          .filter((p) => !schemaAccepts('query', route, p.query)),
      );
    }
    if (param.required && param.schema.default === undefined) {
      add(
        `query ${param.name} missing`,
        4,
        base.map((p) => {
          const { [param.name]: _dropped, ...rest } = p.query;
          return { ...p, query: rest };
        }),
      );
    }
  }

  if (isPost) {
    const withBody = (p: Parts, body: string | Buffer | undefined, headers: Record<string, string> = JSON_TYPES): Parts => {
      const { 'content-type': _ct, ...rest } = p.headers;
      return { ...p, headers: { ...rest, ...headers }, ...(body === undefined ? { body: undefined } : { body }) };
    };
    add(
      'malformed JSON',
      6,
      fc
        .tuple(base, fc.oneof(fc.constantFrom(...MALFORMED_JSON), truncatedJson(route, pool)))
        .map(([p, text]) => withBody(p, text)),
    );
    add('empty JSON body', 2, base.map((p) => withBody(p, '')));
    add(
      'unsupported content type',
      4,
      fc
        .tuple(base, fc.constantFrom('application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'image/png', 'json'))
        .map(([p, type]) => withBody(p, p.body ?? '{}', { 'content-type': type })),
    );
    add(
      'body too large',
      1,
      base.map((p) => withBody(p, `{"zz":"${'a'.repeat(pool.maxBodyBytes)}"}`)),
    );
    add(
      'prototype poisoning',
      3,
      fc
        .tuple(base, fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}', '{"a":{"__proto__":{"x":1}}}'))
        .map(([p, text]) => {
          const rest = p.body ? String(p.body).slice(1) : '}';
          const body = rest === '}' ? text : `${text.slice(0, -1)},${rest}`;
          return withBody(p, body);
        }),
    );
  }

  if (route.body) {
    const bodySchema = route.body;
    add(
      'body field breaks its schema',
      20,
      fc
        .tuple(base, breakValue('body', bodySchema, pool))
        .filter(([, body]) => !schemaAccepts('body', route, body))
        .map(([p, body]) => ({ ...p, body: JSON.stringify(body) ?? 'null' })),
    );
    add(
      'body is not an object',
      3,
      fc.tuple(base, fc.oneof(fc.array(junkJson, { maxLength: 3 }), nastyString, fc.integer(), fc.constant(null), fc.boolean())).map(([p, v]) => ({ ...p, body: JSON.stringify(v) })),
    );
    add('no body', 2, base.map((p) => ({ ...p, body: undefined, headers: Object.fromEntries(Object.entries(p.headers).filter(([k]) => k !== 'content-type')) })));
    add(
      'text/plain body',
      2,
      base.map((p) => ({ ...p, headers: { ...p.headers, 'content-type': 'text/plain' }, body: p.body ?? '{}' })),
    );
    add('deeply nested JSON', 3, fc.tuple(base, fc.integer({ min: 100, max: 100_000 }), fc.boolean(), fc.nat()).map(([p, depth, arrays, at]) => {
      const deep = arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      // Top level: an array, or an extra key the closed schema refuses; else inside a known field.
      const keys = Object.keys(bodySchema.properties ?? {});
      const key = at % 2 === 0 || keys.length === 0 ? '~deep' : keys[at % keys.length]!;
      const body = arrays && at % 3 === 0 ? deep : `{"${key}":${deep}}`;
      return { ...p, body };
    }).filter((p) => {
      // Top-level arrays are never the object a body schema asks for; an unknown key breaks a closed schema;
      // a known field breaks when it is not an open object that could hold the nesting.
      const m = /^\{"([^"]+)":/.exec(String(p.body));
      if (!m) return true;
      const prop = bodySchema.properties?.[m[1]!];
      return prop ? prop.type !== undefined && prop.type !== 'object' : bodySchema.additionalProperties === false;
    }));
    const patterned = patternFields(bodySchema);
    if (patterned.length > 0) add(
      'unicode or raw bytes in a patterned field',
      4,
      fc
        .tuple(base, fc.constantFrom(...patterned), fc.constantFrom('\\u0000', '\\ud800', '\\udfff', '\\u202e', '😀', '\u00e9', '%FF'), fc.boolean())
        .map(([p, field, junk, rawBytes]) => {
          const marker = 'ZZMARKERZZ';
          const body = JSON.parse(String(p.body ?? '{}')) as Record<string, unknown>;
          body[field] = `0x${marker}`;
          const text = JSON.stringify(body);
          if (rawBytes) {
            const [before, after] = text.split(marker) as [string, string];
            return { ...p, body: Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xed, 0xa0, 0x80]), Buffer.from(after)]) };
          }
          return { ...p, body: text.replace(marker, junk) };
        }),
    );
    const sample = JSON.stringify(fc.sample(plausible('body', bodySchema, pool), 1)[0]);
    if (semanticTargets(JSON.parse(sample)).length > 0) {
      add(
        'body value the route parses and refuses',
        10,
        fc
          .tuple(base, fc.nat(), fc.nat())
          .map(([p, i, j]): Parts | undefined => {
            const body = JSON.parse(String(p.body)) as unknown;
            const targets = semanticTargets(body);
            if (targets.length === 0) return undefined;
            const path = targets[i % targets.length]!;
            const values = SEMANTIC_BREAKS[String(path[path.length - 1])]!;
            return { ...p, body: JSON.stringify(setAt(body, path, values[j % values.length])) };
          })
          .filter((p): p is Parts => p !== undefined),
      );
    }
  }
  return out;
}

/** Top-level string fields with a pattern (hashes, addresses, signatures, event ids). */
function patternFields(s: JsonSchema): string[] {
  return Object.entries(s.properties ?? {})
    .filter(([k, v]) => v.type === 'string' && v.pattern !== undefined && (s.required ?? []).includes(k))
    .map(([k]) => k);
}

/** A proper prefix of an object's JSON text is never JSON. */
function truncatedJson(route: RouteSpec, pool: FuzzPool): Arb<string> {
  const source = route.body ? plausible('body', route.body, pool) : fc.dictionary(fc.string({ maxLength: 5 }), junkJson, { minKeys: 1, maxKeys: 3 });
  return fc.tuple(source, fc.nat()).map(([v, n]) => {
    const text = JSON.stringify(v);
    return text.slice(0, 1 + (n % (text.length - 1)));
  });
}

function withAuth(p: Parts, auth: Record<string, string>): Parts {
  const headers = Object.fromEntries(Object.entries(p.headers).filter(([k]) => k !== 'authorization' && k !== 'x-api-key'));
  return { ...p, headers: { ...headers, ...auth } };
}

/** Broken requests for one route, each labelled with what was broken. */
export function brokenRequests(route: RouteSpec, pool: FuzzPool): Arb<FuzzCase> {
  return fc.oneof(
    ...breakers(route, pool).map((b) => ({
      weight: b.weight,
      arbitrary: b.arb.map((parts) => ({
        breaker: b.name,
        request: {
          method: parts.method,
          path: buildPath(route, parts),
          headers: parts.headers,
          ...(parts.body !== undefined ? { body: parts.body } : {}),
        },
      })),
    })),
  );
}

/** Paths no route serves: 404 in the envelope, whatever the method. */
export function unroutedRequests(): Arb<FuzzCase> {
  const segment = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }).map(percentEncode), fc.constantFrom('..', '.', '%2e%2e', '%2F', '', 'admin', 'orders'));
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
      prefix: fc.constantFrom('/~', '/admin/~', '/orders/~', '/trades/~', '//~', '/%7E'),
    })
    .map(({ method, segments, prefix }) => ({
      breaker: 'no such route',
      request: { method, path: prefix + segments.join('/'), headers: {} },
    }));
}

// ---- accepted admin bodies at the edges of their schema ----------------------------------------------

/** A value the schema accepts, pushed to its edges: numbers at their bounds (huge when unbounded), long strings. */
function edgeValue(name: string, s: JsonSchema, pool: FuzzPool): Arb {
  const usual = plausible(name, s, pool);
  switch (s.type) {
    case 'integer':
    case 'number': {
      if (byName(name, s, pool)) return usual; // ids and the like must name real things to get past lookups
      const edges = [s.minimum ?? -9e15, s.maximum ?? 9e15, s.maximum ?? 1e21, s.minimum ?? -(2 ** 53) + 1];
      return fc.oneof(usual, fc.constantFrom(...edges));
    }
    case 'string':
      if (s.pattern || s.enum || byName(name, s, pool)) return usual;
      return fc.oneof(usual, fc.constant('x'.repeat(s.maxLength ?? 1000)), fc.constant('\u00e9\u{1F600}'.repeat(Math.floor((s.maxLength ?? 40) / 4))));
    case 'object': {
      const props = s.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, edgeValue(k, v, pool)]));
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    case 'array':
      return fc.array(edgeValue(name, s.items ?? {}, pool), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 5) });
    default:
      return usual;
  }
}

/** Admin requests with the right token and a body the schema accepts, its values at their edges. */
export function edgeAdminRequests(route: RouteSpec, pool: FuzzPool): Arb<FuzzCase> {
  return fc
    .record({
      parts: baseParts(route, pool),
      body: route.body ? edgeValue('body', route.body, pool) : fc.constant(undefined),
    })
    .filter(({ body }) => body === undefined || schemaAccepts('body', route, body))
    .map(({ parts, body }) => ({
      breaker: 'edge values',
      request: {
        method: route.method,
        path: buildPath(route, parts),
        headers: { ...validAuth(route, pool), ...(body !== undefined ? JSON_TYPES : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
    }));
}
