import { OrderRefusedError } from '../orders/index.js';
import { ApiError } from './errors.js';

/** What the workflow's refusal codes mean in HTTP: a state that moved on is a conflict, a broken rule a 422. */
const STATUS_BY_CODE: Record<string, number> = {
  QUOTE_NOT_CURRENT: 409,
  NOT_AWAITING_APPROVAL: 409,
  ALREADY_VOTED: 409,
  ORDER_CLOSED: 409,
  NOT_CANCELLABLE: 409,
  NOT_UNCERTAIN: 409,
  INVALID_VOTE: 400,
  INVALID_CANCEL: 400,
  INVALID_RESOLUTION: 400,
  // Our own signature refused: the API and the workers hold different MVE_ACTION_KEYs.
  UNSIGNED_ACTION: 503,
};

/** Runs an order action, turning the workflow's refusal into the API's error with the same code. */
export async function asApiRefusal<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof OrderRefusedError)) throw error;
    const message =
      error.code === 'UNSIGNED_ACTION'
        ? `the workers refused this server's signature (${error.message}); check that MVE_ACTION_KEY is the same on the API and the workers`
        : error.message;
    throw new ApiError(STATUS_BY_CODE[error.code] ?? 422, error.code, message);
  }
}
