import { OrderRefusedError } from '../orders/index.js';
import { refusalError } from './errors.js';

/** Runs an order action, turning the workflow's refusal into the API's error with the same code. */
export async function asApiRefusal<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof OrderRefusedError)) throw error;
    throw refusalError(error);
  }
}
