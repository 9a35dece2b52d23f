import type { FastifyInstance } from 'fastify';
import { withinTime } from '../../../infra/within-time.js';

/** Checks of what the API depends on; each resolves when reachable and throws (with the reason) when not. */
export interface Readiness {
  temporal(): Promise<void>;
  postgres(): Promise<void>;
}

/**
 * `/healthz`: the process answers. `/readyz`: Temporal and Postgres answer too (503 naming what does not), and the
 * server is not stopping (503 `draining`: a load balancer sends it nothing more while it finishes what it has).
 */
export function registerHealthRoutes(app: FastifyInstance, readiness: Readiness, draining: () => boolean): void {
  app.get('/healthz', { schema: { summary: 'The process is up', tags: ['operations'], security: [] } }, () =>
    Promise.resolve({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Temporal and PostgreSQL are reachable, and the server is not stopping',
        description:
          '200 `ready`; 503 `not ready` naming the check that fails, or 503 `draining` once the server is stopping',
        tags: ['operations'],
        security: [],
      },
    },
    async (_request, reply) => {
      if (draining()) return reply.code(503).send({ status: 'draining', checks: {} });
      const checks = await Promise.all(
        (['temporal', 'postgres'] as const).map(async (name) => {
          try {
            await withinTime(readiness[name](), 3_000);
            return [name, { ok: true }] as const;
          } catch (error) {
            return [name, { ok: false, error: (error as Error).message }] as const;
          }
        }),
      );
      const ready = checks.every(([, check]) => check.ok);
      return reply.code(ready ? 200 : 503).send({
        status: ready ? 'ready' : 'not ready',
        checks: Object.fromEntries<{ ok: boolean; error?: string }>(checks),
      });
    },
  );
}
