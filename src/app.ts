// The Fastify application: envelope, OpenAPI, routes. No listening, no storage opening.
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import type { AppContext } from './context.js';
import { installEnvelope, replyToFrameworkError } from './api/envelope.js';
import { registerRoutes } from './api/routes.js';
import { installAdminAuth } from './admin/auth.js';
import { registerMetrics } from './api/metrics.js';
import { installRateLimit } from './api/rate-limit.js';
import { registerWebPage } from './api/web-page.js';
import { installQueryLimit, replyToClientError, slowClientLimits } from './api/rate-limit/request-limits.js';
import { exampleTransform, signedExamples } from './api/schemas/examples.js';

export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log,
    bodyLimit: ctx.config.maxBodyBytes,
    // Slow clients cannot hold a connection open forever.
    ...slowClientLimits(ctx.config),
    clientErrorHandler: replyToClientError,
    frameworkErrors: replyToFrameworkError,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Query strings and path params arrive as text and are coerced; JSON bodies must carry the right types
  // (an amount sent as a number, or a boolean as "true", is rejected).
  const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false });
  const exact = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, strict: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema));
  // Response schemas document the replies (OpenAPI, /docs) and test/openapi.test.ts holds replies to them; replies
  // are written with JSON.stringify, so a field a schema does not (yet) list is never silently dropped.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  installEnvelope(app);
  installRateLimit(app, {
    limits: ctx.config.rateLimits,
    now: ctx.now,
    isIssuedKey: (key) => ctx.apiKeys.addressOf(key) !== undefined,
  });
  installQueryLimit(app, ctx.config.maxQueryBytes);
  await app.register(swagger, {
    transform: exampleTransform(signedExamples(ctx.config)),
    openapi: {
      info: { title: 'Oddex exchange API', version: '1.0.0', description: 'Order-book betting exchange' },
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

  installAdminAuth(app, ctx);
  registerMetrics(app, ctx);
  registerRoutes(app, ctx);
  await registerWebPage(app);
  return app;
}
