// Read-your-writes: every reply names the journal position it reflects (`Oddex-Position`: the acknowledged
// position after a write, the read models' position after a read), and a read waits, bounded, until the read models
// cover every write acknowledged before it arrived, or the later position the client names in `Oddex-Min-Position`.
// For a read of account state that is every write acknowledged anywhere (a gateway asks the sequencer), so an account
// sees its writes whichever gateway took them; past the bound it answers 503 READ_MODEL_BEHIND with Retry-After:
// never state older than the client's own writes. Public market data waits only for this process's own writes, and
// past the bound answers from the newest projection (its Oddex-Position says which; a position the client names is
// still honoured, or 503), and waits no more until the projection moves: a stopped projector must not take the
// catalogue, /metadata or the health checks down with it. The process's own routes (health, metrics) never wait.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

export const POSITION_HEADER = 'oddex-position';
export const MIN_POSITION_HEADER = 'oddex-min-position';

export interface ReadYourWritesDeps {
  /** The journal position of the last write this process acknowledged. */
  acknowledged: () => number;
  /** A position past every write acknowledged before the call, on any gateway (SequencerPort.latestPosition). */
  latest: () => Promise<number>;
  projection: { readonly position: number; waitFor(seq: number, timeoutMs: number): Promise<boolean> };
  /** How long a read waits for the read models before answering READ_MODEL_BEHIND. */
  waitMs: number;
}

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** Reads of an account's state: never older than the writes acknowledged before them. */
const ACCOUNT_READS = new Set([
  '/orders',
  '/trades',
  '/trades/orders',
  '/trades/consolidated',
  '/trades/portfolio/refunds',
  '/balances/:address',
  '/positions',
  '/account/statement',
  '/admin/accounts/:address',
  '/admin/fees',
]);
/** About the process itself: answered at once whatever the projection. */
const PROCESS_ROUTES = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

type Freshness = 'account' | 'public' | 'none';
function freshnessOf(request: FastifyRequest): Freshness {
  const route = request.routeOptions.url;
  if (!isRead(request.method) || route === undefined || PROCESS_ROUTES.has(route)) return 'none';
  return ACCOUNT_READS.has(route) ? 'account' : 'public';
}

function namedPosition(value: string | string[] | undefined): number {
  if (value === undefined) return 0;
  const text = Array.isArray(value) ? value[0]! : value;
  if (!/^\d{1,15}$/.test(text)) {
    const message = `${MIN_POSITION_HEADER} must be a journal position (a non-negative integer)`;
    throw new ApiError('INVALID_PARAMETER', message, {}, [{ field: MIN_POSITION_HEADER, rule: 'pattern', message }]);
  }
  return Number(text);
}

/** Adds the hooks to every route registered in `api` after this call. */
export function addReadYourWrites(api: FastifyInstance, deps: ReadYourWritesDeps): void {
  // The projection's position when a public read last waited out the bound: until it moves, public reads do not wait.
  let stalledAt: number | undefined;
  api.addHook('onRequest', async (request) => {
    const route = freshnessOf(request);
    if (route === 'none') return;
    const named = namedPosition(request.headers[MIN_POSITION_HEADER]);
    // A position the client names is honoured on any read.
    const lenient = route === 'public' && named === 0;
    // An account's reads see its writes made through any gateway; public data only this process's own.
    const target = Math.max(route === 'public' ? deps.acknowledged() : await deps.latest(), named);
    const at = deps.projection.position;
    if (target <= at) return;
    if (lenient && stalledAt === at) return;
    if (await deps.projection.waitFor(target, deps.waitMs)) return;
    if (lenient) {
      stalledAt = deps.projection.position;
      return;
    }
    throw new ApiError('READ_MODEL_BEHIND', `the read models have not reached journal position ${target} yet; retry shortly`, {
      headers: { 'retry-after': '1' },
    });
  });
  api.addHook('onSend', async (request, reply, payload) => {
    reply.header(POSITION_HEADER, String(isRead(request.method) ? deps.projection.position : deps.acknowledged()));
    return payload;
  });
}
