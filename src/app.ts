// The Fastify application: envelope, limits, OpenAPI, admin guard, metrics, then the routes server.ts hands in.
// No listening, no storage opening.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { documentPositions } from './api/openapi-positions.js';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import type { Config } from './config.js';
import { installEnvelope, replyToFrameworkError } from './api/envelope.js';
import { apiDescription } from './api/errors.js';
import { ExchangeError } from './protocol/errors.js';
import { installAdminAuth } from './admin/auth.js';
import { registerMetrics, type MetricsDeps } from './api/metrics.js';
import { installRateLimit } from './api/rate-limit.js';
import { FORWARDED_MARK } from './sequencer/port.js';
import type { RateLimiter } from './api/rate-limit/limiter.js';
import { registerWebPage } from './api/web-page.js';
import { installQueryLimit, replyToClientError, slowClientLimits } from './api/rate-limit/request-limits.js';
import { exampleTransform, signedExamples } from './api/schemas/examples.js';
import { withDecimalNumbers } from './api/strict-numbers.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './api/json-depth.js';
import { trackConnections } from './api/http-drain.js';

export interface AppDeps {
  config: Config;
  log: FastifyBaseLogger;
  now: () => number;
  adminToken: string;
  /** Whether an API key is one this exchange issued (rate limits count issued keys on their own). */
  isIssuedKey: (key: string) => boolean;
  metrics: MetricsDeps;
  /** Rate-limit windows shared by several processes; default: this process's own. */
  rateLimiter?: RateLimiter;
  /** The secret header value of requests this process injects for a gateway (server.ts): not counted again. */
  forwardedMark?: string;
  /** Every route of the exchange, as one plugin (server.ts registers each route module with its dependencies). */
  routes: FastifyPluginAsyncTypebox;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, now } = deps;
  const app = Fastify({
    loggerInstance: deps.log,
    bodyLimit: config.maxBodyBytes,
    // Slow clients cannot hold a connection open forever.
    ...slowClientLimits(config),
    clientErrorHandler: replyToClientError,
    frameworkErrors: replyToFrameworkError,
    // Requests arriving while the server closes are refused below, in the exchange's own envelope.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // From the start of close(): a request on a connection still open (keep-alive) is shed with 503 NOT_READY, its
  // connection closed, so a load balancer or client takes it elsewhere; requests already running finish. A connection
  // is closed by the stop only once it has been idle for a moment, so that a request already sent on it is answered
  // rather than cut (http-drain.ts).
  let closing = false;
  const connections = trackConnections(app.server);
  app.addHook('preClose', async () => {
    closing = true;
    await connections.drain(deps.config.shutdownIdleGraceMs);
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new ExchangeError('NOT_READY', 'the exchange is shutting down: retry on another server, or here once it is back');
  });

  // Query strings and path params arrive as text and are coerced (numbers only from plain decimal text); JSON bodies
  // must carry the right types (an amount sent as a number, or a boolean as "true", is rejected).
  const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false });
  const exact = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, strict: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? exact.compile(schema) : withDecimalNumbers(schema, coercing.compile(schema))));
  // Response schemas document the replies (OpenAPI, /docs) and test/openapi.test.ts holds replies to them; replies
  // are written with JSON.stringify, so a field a schema does not (yet) list is never silently dropped.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // JSON bodies only: a text/plain body would reach the schema as a string ("body must be object"), where every
  // other type is told the one it must be (415 UNSUPPORTED_MEDIA_TYPE).
  app.removeContentTypeParser('text/plain');
  // Fastify's own JSON parser (prototype poisoning refused), behind a check of the nesting depth: a deeply nested body
  // would block the event loop while it parses (json-depth.ts).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new ExchangeError('MALFORMED_JSON', `request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  installEnvelope(app);
  installRateLimit(app, {
    limits: config.rateLimits,
    now,
    isIssuedKey: deps.isIssuedKey,
    ...(deps.rateLimiter ? { limiter: deps.rateLimiter } : {}),
    ...(deps.forwardedMark ? { isForwarded: (request: FastifyRequest) => request.headers[FORWARDED_MARK] === deps.forwardedMark } : {}),
  });
  installQueryLimit(app, config.maxQueryBytes);
  await app.register(swagger, {
    transform: exampleTransform(signedExamples(config)),
    transformObject: (doc) => ('openapiObject' in doc ? documentPositions(doc.openapiObject) : doc.swaggerObject),
    openapi: {
      info: { title: 'Oddex exchange API', version: '1.0.0', description: apiDescription() },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          admin: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  installAdminAuth(app, { adminToken: deps.adminToken, config, now });
  registerMetrics(app, deps.metrics);
  await app.register(deps.routes);
  await registerWebPage(app);
  return app;
}
