// The server's own route list, read from its /openapi.json, and schema checks that mirror the server's
// validators (same Ajv options as src/app.ts), so a generator can prove a request breaks a schema.
import { Ajv, type ValidateFunction } from 'ajv';

export interface JsonSchema {
  type?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  default?: unknown;
  $ref?: string;
}

export interface ParamSpec {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface RouteSpec {
  method: string;
  /** OpenAPI path, parameters as {name}. */
  template: string;
  pathParams: ParamSpec[];
  query: ParamSpec[];
  body?: JsonSchema;
  /** Under /admin/: needs the operator's bearer token. */
  admin: boolean;
  /** Authenticated by X-Api-Key. */
  apiKey: boolean;
  /** Every method registered on this path (HEAD included for GET routes, which Fastify adds). */
  methodsAtPath: string[];
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
  security?: Record<string, unknown>[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Inlines `#/components/schemas/...` references. */
function resolveRefs(schema: JsonSchema, doc: OpenApiDocument): JsonSchema {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
    return resolveRefs(target, doc);
  }
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolveRefs(v, doc)]));
  }
  if (schema.items) out.items = resolveRefs(schema.items, doc);
  if (schema.anyOf) out.anyOf = schema.anyOf.map((s) => resolveRefs(s, doc));
  return out;
}

export function routesFromOpenApi(doc: OpenApiDocument): RouteSpec[] {
  const routes: RouteSpec[] = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    const methods = Object.keys(operations).map((m) => m.toUpperCase());
    const methodsAtPath = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    for (const [method, op] of Object.entries(operations)) {
      const params = (op.parameters ?? []).map((p) => ({
        in: p.in,
        spec: { name: p.name, required: p.required === true, schema: resolveRefs(p.schema, doc) },
      }));
      const body = op.requestBody?.content?.['application/json']?.schema;
      routes.push({
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.spec),
        query: params.filter((p) => p.in === 'query').map((p) => p.spec),
        ...(body ? { body: resolveRefs(body, doc) } : {}),
        admin: template.startsWith('/admin/'),
        apiKey: (op.security ?? []).some((s) => 'apiKey' in s),
        methodsAtPath,
      });
    }
  }
  return routes;
}

export const routeName = (r: RouteSpec) => `${r.method} ${r.template}`;

// The server compiles querystring and path schemas with coercion and body schemas without (src/app.ts).
const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false });
const exact = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, strict: false });
const compiled = new Map<string, ValidateFunction>();

function validator(kind: 'query' | 'path' | 'body', route: RouteSpec): ValidateFunction {
  const key = `${kind} ${routeName(route)}`;
  let v = compiled.get(key);
  if (!v) {
    if (kind === 'body') {
      v = exact.compile(route.body ?? {});
    } else {
      const params = kind === 'query' ? route.query : route.pathParams;
      v = coercing.compile({
        type: 'object',
        properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
        required: params.filter((p) => p.required).map((p) => p.name),
      });
    }
    compiled.set(key, v);
  }
  return v;
}

/** Whether the server's schema would accept these values (validated on copies: Ajv coerces in place). */
export function schemaAccepts(kind: 'query' | 'path' | 'body', route: RouteSpec, value: unknown): boolean {
  return validator(kind, route)(structuredClone(value)) === true;
}
