import type { Issue, Selection } from '../../../domain/index.js';
import { refusal } from '../failures.js';

/** What the catalog chose for the order; when nothing fits, the order is refused for good with the reasons. */
export function chosen<T>(found: Selection<T>): { value: T; warnings: Issue[] } {
  if (!found.ok) throw refusal('OrderTargetNotFound', 'the catalog cannot serve this order', found.issues);
  return found;
}

/** A warning as a person reads it: where, and what. */
export function described(warning: { path: string; message: string }): string {
  return `${warning.path}: ${warning.message}`;
}
