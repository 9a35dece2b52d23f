import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Payload } from '@temporalio/common';
import { JSONToPayload, payloadToJSON } from '@temporalio/common/lib/proto-utils.js';
import { AesGcmPayloadCodec } from '../../../codec/index.js';
import { allow, mayReadPayloads } from '../access.js';
import type { ApiContext } from '../context.js';
import { ApiError } from '../errors.js';

const ALLOWED_HEADERS = 'Authorization, Authorization-Extras, Content-Type, X-Namespace';

/**
 * A Temporal codec server (POST …/encode and …/decode, proto3 JSON `{ payloads: [...] }` both ways) so ops can
 * read this engine's encrypted payloads in the Temporal Web UI and the `temporal` CLI. The operation is the
 * last path segment, so it may be mounted at any depth (`/codec/{namespace}/decode`). Ops and admins only.
 */
export function registerCodecRoutes(app: FastifyInstance, context: ApiContext): void {
  const codec = new AesGcmPayloadCodec(context.codecKeys);

  const cors = (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin && context.codecCorsOrigins.includes(origin)) {
      void reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-credentials', 'true')
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('vary', 'Origin');
    }
  };

  app.options('/codec/*', { schema: { hide: true } }, async (request, reply) => {
    cors(request, reply);
    return reply.code(200).send();
  });

  app.post(
    '/codec/*',
    {
      schema: {
        summary: "Temporal codec server: POST /codec/[namespace/]decode or /encode with { payloads: [...] } (ops and admins)",
        tags: ['operations'],
      },
    },
    async (request, reply) => {
      cors(request, reply);
      allow(mayReadPayloads(request.principal!), 'the codec server needs the ops or admin role');
      const operation = request.url.split('?')[0]!.split('/').filter(Boolean).at(-1);
      if (operation !== 'decode' && operation !== 'encode') throw new ApiError(404, 'NOT_FOUND', 'the codec server answers …/decode and …/encode');
      const payloads = readPayloads(request.body);
      try {
        const result = operation === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads);
        return { payloads: result.map((payload) => payloadToJSON(payload)) };
      } catch (error) {
        throw new ApiError(400, 'CODEC_FAILED', `the payloads could not be ${operation}d: ${(error as Error).message}`);
      }
    },
  );
}

function readPayloads(body: unknown): Payload[] {
  const list = (body as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) {
    throw new ApiError(400, 'INVALID_INPUT', 'payloads: must be an array of proto3 JSON payloads', [{ path: 'body.payloads', message: 'must be an array' }]);
  }
  try {
    return list.map((item) => JSONToPayload(item));
  } catch (error) {
    throw new ApiError(400, 'INVALID_INPUT', `payloads: not proto3 JSON payloads (${(error as Error).message})`, [{ path: 'body.payloads', message: 'must be proto3 JSON payloads' }]);
  }
}
