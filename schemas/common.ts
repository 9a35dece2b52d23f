import { z } from 'zod';

/** Contract terms in months (spec 2.3 and 8). */
export const TERMS = [1, 12, 24, 36, 48, 60] as const;
export type Term = (typeof TERMS)[number];

export const termSchema = z.union(
  TERMS.map((term) => z.literal(term)),
  { error: `must be one of ${TERMS.join(', ')} (months)` },
);

/** An id we must use (location, image): an integer, or a string of digits some servers send. */
export const numericIdSchema = z.union([z.int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

/** An informational id (data centre, vendor product): kept as given, string or number. */
export const informationalIdSchema = z.union([z.number(), z.string()]).nullish();

/** A number some servers send as a numeric string. */
export const lenientNumberSchema = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(?:\.\d+)?$/)
    .transform(Number),
]);
