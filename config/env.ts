import type { z } from 'zod';

/** A configuration problem, named by its variable, that the CLI prints without a stack trace. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses environment variables with a zod object schema; each problem names its variable and rule. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}
