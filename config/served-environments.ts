import { z } from 'zod';
import { parseEnv } from './env.js';

export const SERVED_ENVIRONMENTS_VARIABLE = 'MVE_ENVIRONMENTS';
export const ENVIRONMENTS = ['staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

const schema = z.object({
  [SERVED_ENVIRONMENTS_VARIABLE]: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined) return [...ENVIRONMENTS];
      const names = [...new Set(text.split(',').map((name) => name.trim()))].filter((name) => name !== '');
      const unknown = names.filter((name) => !(ENVIRONMENTS as readonly string[]).includes(name));
      if (names.length === 0 || unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `must list environments this deployment runs workers for, comma-separated, of ${ENVIRONMENTS.join(', ')}${unknown.length > 0 ? ` (not ${unknown.join(', ')})` : ''}`,
        });
        return z.NEVER;
      }
      return names as Environment[];
    }),
});

/**
 * The environments whose orders this deployment takes (MVE_ENVIRONMENTS, default both): an order for one no worker of
 * the deployment serves would wait forever, so the intake refuses it instead.
 */
export function servedEnvironmentsFromEnv(env: NodeJS.ProcessEnv): Environment[] {
  return parseEnv(schema, env)[SERVED_ENVIRONMENTS_VARIABLE];
}
