import { isIP } from 'node:net';
import { z } from 'zod';
import { parseEnv } from '../../config/env.js';

export const TRUST_PROXY_VARIABLE = 'MVE_TRUST_PROXY';

const RULE =
  'must be the load balancers whose X-Forwarded-For to believe: addresses or CIDR ranges, comma-separated (e.g. 10.0.0.0/8)';

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

const schema = z.object({
  [TRUST_PROXY_VARIABLE]: z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const entries = value.split(',').map((entry) => entry.trim());
      if (entries.every(isAddressOrRange)) return entries.join(',');
      ctx.addIssue({ code: 'custom', message: RULE });
      return z.NEVER;
    }),
});

/**
 * Fastify's `trustProxy` from MVE_TRUST_PROXY: behind a load balancer, which proxies' X-Forwarded-For the server
 * believes, so that a request's address (`request.ip`, what failed authentications are counted by) is the client's,
 * not the balancer's. Unset: none; the address is the connection's. Never "every proxy": a client could then name
 * any address it likes.
 */
export function trustProxyFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return parseEnv(schema, env)[TRUST_PROXY_VARIABLE];
}
