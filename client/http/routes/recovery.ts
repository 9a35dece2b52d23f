import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiContext } from '../context.js';
import { errorBody, orderParams } from '../schemas.js';

const recoverBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1, 'must say why the order is recovered')
    .max(2000, 'must be at most 2000 characters')
    .describe('why: what ended or wedged the order, as you found it'),
});

const recoveryResponse = z.object({
  orderId: z.string(),
  recoveredRunId: z.string().describe('the run that was reset: the latest run the workers admitted for the order'),
  runId: z.string().describe('the run the reset made, which goes on in its place'),
  resetToEventId: z.number().int().describe('the event of the recovered run it went back to: its last completed task'),
});

/** Ops' recovery of an order whose run was ended by a reset or terminate, or wedged (client/orders/recovery.ts). */
export function registerRecoveryRoutes(app: FastifyInstance, context: ApiContext): void {
  const { service } = context;
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/orders/:orderId/recover',
    {
      schema: {
        summary: 'Recover an order whose run was ended (a reset, a terminate) or wedged: ops and admins',
        description:
          "Resets the order's latest admitted run to its last completed workflow task (where the records stand), without " +
          'the signals and updates after it, and records who did it and why; the workers let that reset run go on in its ' +
          'place. 409 NOT_RECOVERABLE (the order ended, or never started), 409 NOT_WEDGED (its run is running and well).',
        params: orderParams,
        body: recoverBody,
        response: {
          200: recoveryResponse,
          400: errorBody,
          401: errorBody,
          403: errorBody,
          404: errorBody,
          409: errorBody,
          429: errorBody,
          503: errorBody,
        },
      },
    },
    async (request) => service.recover(request.principal!, request.params.orderId, request.body.reason),
  );
}
