import { z } from 'zod';
import { faultSchema } from './faults.js';
import { apiError, ok, parseJsonBody, type SimResponse } from './http.js';
import { productReadModeSchema, withStatus } from './products.js';
import { provisioningTimesSchema } from './provisioning.js';
import type { SimState } from './state.js';

/** A multiplier on every price: 1.1 makes each quote 10 % dearer. */
export const priceFactorSchema = z.number().positive('must be greater than 0').max(100, 'must be at most 100');

/** What the simulator has done and how it is set: calls per endpoint, tokens issued, products created (as of now). */
export function snapshot(state: SimState) {
  const now = Date.now();
  return {
    calls: { ...state.calls },
    tokensIssued: state.authority.issuedCount,
    products: state.products.map((product) => withStatus(product, now)),
    faults: state.faults.list(),
    priceFactor: state.catalog.priceFactor,
    provisioning: { ...state.provisioning },
    productRead: state.productRead,
  };
}

/** `value` checked by `schema`, or an Error titled `what` naming each bad field: for the Simulator's own methods. */
export function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = problemsOf(parsed.error).map(({ path, message }) => (path ? `${path} ${message}` : message));
  throw new Error(`${what}: ${problems.join('; ')}`);
}

function problemsOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

/**
 * The JSON body checked by `schema` (or by the schema `schema` picks for it), handed to `apply`; or a 400 titled
 * `what` naming each bad field.
 */
function withBody<T>(
  body: string,
  schema: z.ZodType<T> | ((json: unknown) => z.ZodType<T>),
  what: string,
  apply: (value: T) => SimResponse,
): SimResponse {
  const json = parseJsonBody(body);
  if (!json.ok) return json.response;
  const parsed = (typeof schema === 'function' ? schema(json.value) : schema).safeParse(json.value);
  return parsed.success ? apply(parsed.data) : apiError(400, what, problemsOf(parsed.error));
}

/** One fault or an array of them: a lone fault's errors then name its fields without an index. */
function faultsSchemaFor(json: unknown): z.ZodType<z.output<typeof faultSchema> | Array<z.output<typeof faultSchema>>> {
  return Array.isArray(json) ? z.array(faultSchema) : faultSchema;
}

/**
 * The admin surface under /_sim, for tests and demos only (no authentication: the simulator is a local tool):
 * GET /state, POST /faults (one fault or an array), DELETE /faults, POST /prices ({factor}), POST /tokens/expire,
 * PUT /provisioning ({configuredAfterMs, liveAfterMs}), PUT /product-read ({mode}).
 */
export function handleAdmin(state: SimState, method: string, path: string, body: string): SimResponse {
  const route = `${method} ${path}`;
  switch (route) {
    case 'GET /state':
      return ok(snapshot(state));
    case 'POST /faults':
      return withBody(body, faultsSchemaFor, 'Invalid fault', (faults) => {
        for (const fault of [faults].flat()) state.faults.inject(fault);
        return ok({ faults: state.faults.list() });
      });
    case 'DELETE /faults':
      state.faults.clear();
      return ok({ faults: [] });
    case 'POST /prices':
      return withBody(body, z.object({ factor: priceFactorSchema }), 'Invalid price factor', ({ factor }) => {
        state.catalog.priceFactor = factor;
        return ok({ priceFactor: state.catalog.priceFactor });
      });
    case 'POST /tokens/expire':
      state.authority.expireAll();
      return ok({ expired: true });
    case 'PUT /provisioning':
      return withBody(body, provisioningTimesSchema, 'Invalid provisioning times', (times) => {
        state.provisioning = times;
        return ok({ provisioning: { ...state.provisioning } });
      });
    case 'PUT /product-read':
      return withBody(
        body,
        z.strictObject({ mode: productReadModeSchema }),
        'Invalid product read mode',
        ({ mode }) => {
          state.productRead = mode;
          return ok({ productRead: state.productRead });
        },
      );
    default:
      return apiError(
        404,
        `No admin route ${route}: use GET /_sim/state, POST|DELETE /_sim/faults, POST /_sim/prices, ` +
          'POST /_sim/tokens/expire, PUT /_sim/provisioning, PUT /_sim/product-read',
      );
  }
}
