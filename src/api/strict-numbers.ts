// Query strings and path parameters are text that Ajv coerces to the schema's types. For numbers it reads the text as
// JavaScript does, so `0x65` would be league 101, `1e2` a page size of 100 and ` 7` a 7: a client's typo or encoding
// mistake answered as if it were another value. Here a number in a query or a path is written in plain decimal.
import type { ValidateFunction } from 'ajv';

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

interface PropertySchema {
  type?: unknown;
}

/** `validate` (Ajv, coercing) preceded by a check that each top-level integer or number property is plain decimal text. */
export function withDecimalNumbers(schema: unknown, validate: ValidateFunction): ValidateFunction {
  const properties = (schema as { properties?: Record<string, PropertySchema> }).properties ?? {};
  const numeric = Object.entries(properties)
    .filter(([, s]) => s.type === 'integer' || s.type === 'number')
    .map(([name, s]) => ({ name, type: s.type as 'integer' | 'number' }));
  if (numeric.length === 0) return validate;
  const checked = ((data: unknown, ctx?: Parameters<ValidateFunction>[1]) => {
    if (data !== null && typeof data === 'object') {
      for (const { name, type } of numeric) {
        const raw = (data as Record<string, unknown>)[name];
        if (typeof raw === 'string' && !(type === 'integer' ? INTEGER : NUMBER).test(raw)) {
          checked.errors = [{ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type }, message: `must be ${type}` }];
          return false;
        }
      }
    }
    const ok = validate(data, ctx);
    checked.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  // Fastify passes the parent object to validators that carry Ajv's schemaEnv, so coerced values land in the request.
  Object.assign(checked, { schema: validate.schema, schemaEnv: validate.schemaEnv });
  return checked;
}
