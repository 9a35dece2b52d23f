/** A list filter that cannot be compiled. The message names the problem and its position (1-based). */
export class VisibilityQueryError extends Error {
  override readonly name = 'VisibilityQueryError';
}

/** Builds an error whose message says what is wrong and where: "<problem> at position N[; <hint>]". */
export function queryError(problem: string, position: number, hint?: string): VisibilityQueryError {
  return new VisibilityQueryError(`${problem} at position ${position}${hint ? `; ${hint}` : ''}`);
}
