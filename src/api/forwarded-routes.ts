// On a gateway, the routes only the sequencer's process can answer (the operator routes but API keys, a parlay
// request, best odds and cash-out quotes: the catalogue's writes and the engine's live state) are forwarded to it
// once this gateway has authenticated and counted them, and its reply is sent on as it came. A client may call any
// gateway for any route.
import type { FastifyInstance } from 'fastify';
import type { RouteForwarder } from '../sequencer/port.js';

/** Whether a gateway forwards this route (its pattern as routed) to the sequencer's process. */
export function isForwardedRoute(method: string, route: string | undefined): boolean {
  if (route === undefined) return false;
  // API keys are issued and revoked on any process (they live in the database).
  if (route.startsWith('/admin/')) return !route.startsWith('/admin/api-keys');
  if (method === 'POST') return route === '/parlays/request';
  return (method === 'GET' || method === 'HEAD') && (route === '/orders/odds/best' || route === '/cashout/quote');
}

/** Adds the hook to every route registered in `api` after this call. */
export function forwardSequencerRoutes(api: FastifyInstance, forwarder: RouteForwarder): void {
  api.addHook('preValidation', async (request, reply) => {
    if (!isForwardedRoute(request.method, request.routeOptions.url)) return;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(request.headers)) {
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const forwarded = await forwarder.forward({
      method: request.method,
      url: request.url,
      headers,
      remoteAddress: request.ip,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
    return reply.code(forwarded.status).headers(forwarded.headers).send(forwarded.body);
  });
}
