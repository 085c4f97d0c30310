// Which rate-limit bucket a request draws on (spec section 8). This table is the single source of truth:
// the hook, the tests and the docs all read it.

/** The per-client buckets of spec section 8; every counted request also counts in the global ceiling. */
export type RateBucket = 'orderOps' | 'orderReads' | 'trades' | 'base';
export const RATE_BUCKETS: readonly RateBucket[] = ['orderOps', 'orderReads', 'trades', 'base'];

/** Routes (method and registered URL pattern) of the shared buckets; every other counted route is `base`. */
export const BUCKET_ROUTES: Readonly<Record<Exclude<RateBucket, 'base'>, readonly string[]>> = {
  orderOps: [
    'POST /orders/new',
    'POST /orders/cancel/v2',
    'POST /orders/cancel/event',
    'POST /orders/cancel/all',
    'POST /orders/replace',
    'POST /orders/fill/v2',
  ],
  orderReads: ['GET /orders', 'GET /orders/odds/best'],
  trades: ['GET /trades', 'GET /trades/consolidated', 'GET /trades/orders', 'GET /trades/portfolio/refunds'],
};

/**
 * Never counted: probes and docs, the operator's API, and the realtime endpoint (subscriptions do not
 * draw on the quota, spec section 6). Matched on the registered pattern, so an unknown path under
 * these prefixes is a 404 and counts as `base`.
 */
export const EXEMPT_EXACT: readonly string[] = ['/health', '/metrics', '/openapi.json', '/connection/websocket'];
export const EXEMPT_PREFIXES: readonly string[] = ['/health/', '/docs', '/admin/'];

export const EXEMPT = 'exempt';
export type RouteClass = RateBucket | typeof EXEMPT;

// pattern -> method -> bucket, built once from BUCKET_ROUTES.
const byPattern = new Map<string, Record<string, RateBucket>>();
for (const [bucket, routes] of Object.entries(BUCKET_ROUTES) as [RateBucket, readonly string[]][]) {
  for (const route of routes) {
    const [method = '', pattern = ''] = route.split(' ');
    const methods = byPattern.get(pattern) ?? {};
    methods[method] = bucket;
    byPattern.set(pattern, methods);
  }
}

function isExempt(pattern: string): boolean {
  if (EXEMPT_EXACT.includes(pattern)) return true;
  for (const prefix of EXEMPT_PREFIXES) if (pattern.startsWith(prefix)) return true;
  return false;
}

/**
 * The bucket of a request from its method and the route's registered URL pattern (`request.routeOptions.url`,
 * undefined when no route matched). HEAD is counted like the GET it mirrors. No allocation.
 */
export function classifyRoute(method: string, pattern: string | undefined): RouteClass {
  if (pattern === undefined) return 'base';
  const bucket = byPattern.get(pattern)?.[method === 'HEAD' ? 'GET' : method];
  if (bucket) return bucket;
  return isExempt(pattern) ? EXEMPT : 'base';
}
