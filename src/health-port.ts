// The HTTP answers of a process without the exchange's HTTP API (a projector, a settlement process, a realtime node):
// /health and /health/live (alive), /health/ready (200 while it does its work, 503 otherwise) and /metrics
// (Prometheus text), for supervisors, load balancers and monitoring.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

export function healthPort(opts: { registry: Registry; ready: () => boolean; notReady: string | (() => string) }): (req: IncomingMessage, res: ServerResponse) => void {
  const { registry } = opts;
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/metrics') {
      void registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(503).end();
        },
      );
      return;
    }
    const healthy = path === '/health' || path === '/health/live' || (path === '/health/ready' && opts.ready());
    res.writeHead(healthy ? 200 : path?.startsWith('/health') ? 503 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(healthy ? { status: 'ok' } : { status: path === '/health/ready' ? (typeof opts.notReady === 'string' ? opts.notReady : opts.notReady()) : 'error' }));
  };
}
