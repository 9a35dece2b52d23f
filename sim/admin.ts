import { z } from 'zod';
import { faultSchema } from './faults.js';
import { apiError, ok, parseJsonBody, type SimResponse } from './http.js';
import type { SimState } from './state.js';

/** What the simulator has done: calls per endpoint, tokens issued, products created. */
/** A multiplier on every price: 1.1 makes each quote 10 % dearer. */
export const priceFactorSchema = z.number().positive('must be greater than 0').max(100, 'must be at most 100');

export function snapshot(state: SimState) {
  return {
    calls: { ...state.calls },
    tokensIssued: state.authority.issuedCount,
    products: state.products.map((product) => ({ ...product })),
    faults: state.faults.list(),
    priceFactor: state.catalog.priceFactor,
  };
}

/**
 * The admin surface under /_sim, for tests and demos only (no authentication: the simulator is a local tool):
 * GET /state, POST /faults (one fault or an array), DELETE /faults, POST /prices ({factor}), POST /tokens/expire.
 */
export function handleAdmin(state: SimState, method: string, path: string, body: string): SimResponse {
  const route = `${method} ${path}`;
  switch (route) {
    case 'GET /state':
      return ok(snapshot(state));
    case 'POST /faults': {
      const parsed = parseJsonBody(body);
      if (!parsed.ok) return parsed.response;
      const faults = (Array.isArray(parsed.value) ? z.array(faultSchema) : faultSchema).safeParse(parsed.value);
      if (!faults.success) {
        return apiError(
          400,
          'Invalid fault',
          faults.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
        );
      }
      for (const fault of [faults.data].flat()) state.faults.inject(fault);
      return ok({ faults: state.faults.list() });
    }
    case 'DELETE /faults':
      state.faults.clear();
      return ok({ faults: [] });
    case 'POST /prices': {
      const parsed = parseJsonBody(body);
      if (!parsed.ok) return parsed.response;
      const factor = z.object({ factor: priceFactorSchema }).safeParse(parsed.value);
      if (!factor.success)
        return apiError(
          400,
          'Invalid price factor',
          factor.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
        );
      state.catalog.priceFactor = factor.data.factor;
      return ok({ priceFactor: state.catalog.priceFactor });
    }
    case 'POST /tokens/expire':
      state.authority.expireAll();
      return ok({ expired: true });
    default:
      return apiError(
        404,
        `No admin route ${route}: use GET /_sim/state, POST|DELETE /_sim/faults, POST /_sim/prices, POST /_sim/tokens/expire`,
      );
  }
}
