import type { z } from 'zod';
import { invalidInput, translateDatabaseError } from './errors.js';

/**
 * Runs one repository operation: validates the input (refusing bad input before anything is written),
 * then runs the body, turning integrity errors into RepositoryErrors that name the rule broken.
 */
export async function operation<S extends z.ZodType, R>(
  name: string,
  schema: S,
  input: unknown,
  body: (value: z.output<S>) => Promise<R>,
): Promise<R> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInput(name, parsed.error);
  try {
    return await body(parsed.data);
  } catch (error) {
    throw translateDatabaseError(name, error);
  }
}
