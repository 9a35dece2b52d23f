import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDeepStrictEqual } from 'node:util';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AesGcmPayloadCodec } from '../../../codec/index.js';
import { redactOrderRequest } from '../../../domain/index.js';
import { allow, mayReadPayloads, payloadFromJson, payloadToJson } from '../../orders/index.js';
import type { ApiContext } from '../context.js';
import { ApiError } from '../errors.js';
import { errorBody } from '../schemas.js';

const ALLOWED_HEADERS = 'Authorization, Authorization-Extras, Content-Type, X-Namespace';

/** Whether a browser page of this origin may call the codec server (MVE_CODEC_CORS_ORIGINS): the Temporal Web UI. */
export function isCodecOrigin(context: ApiContext, origin: string | undefined): origin is string {
  return origin !== undefined && context.codecCorsOrigins.includes(origin);
}

/**
 * CORS for the codec server, on every answer (a 401 too, so the Web UI can say why): only for the configured
 * origins, with credentials, as the Temporal Web UI calls it. Runs before authentication.
 */
export function codecCors(context: ApiContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const origin = request.headers.origin;
    if (!request.url.startsWith('/codec/') || !isCodecOrigin(context, origin)) return;
    void reply
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-credentials', 'true')
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('vary', 'Origin');
  };
}

const payloadsBody = z
  .object({ payloads: z.array(z.unknown()) })
  .describe(
    'proto3 JSON of temporal.api.common.v1.Payloads: { payloads: [{ metadata: { key: base64 }, data: base64 }] }',
  );

/**
 * A Temporal codec server that only decodes (POST …/decode, proto3 JSON `{ payloads: [...] }` both ways) so ops can
 * read this engine's encrypted payloads in the Temporal Web UI and the `temporal` CLI: decoded, with an order
 * request's secrets redacted as the history route shows them. The operation is the last path segment, so it may be
 * mounted at any depth (`/codec/decode`, `/codec/{namespace}/decode`, deeper). Ops and admins only.
 *
 * No …/encode: it would encrypt whatever its caller sends, and so let anyone with an ops token write payloads the
 * workers read as ours (a worker of their own with this server as its codec calls our activities). Reading needs
 * decode only.
 */
export function registerCodecRoutes(app: FastifyInstance, context: ApiContext): void {
  const codec = new AesGcmPayloadCodec(context.codecKeys, { plaintext: 'pass' });
  app.options('/codec/*', { schema: { hide: true } }, async (_request, reply) => reply.code(200).send());
  app.withTypeProvider<ZodTypeProvider>().post(
    '/codec/*',
    {
      schema: {
        summary: 'Temporal codec server: POST /codec/[namespace/]decode (ops and admins); it only decodes',
        description:
          "Decodes payloads for the Temporal Web UI and the `temporal` CLI, with order requests' secrets redacted. " +
          'There is no …/encode (404): the codec server does not encrypt payloads for anyone, so an ops credential ' +
          'cannot make payloads the workers would read.',
        tags: ['operations'],
        body: payloadsBody,
        response: {
          200: payloadsBody,
          400: errorBody,
          401: errorBody,
          403: errorBody,
          404: errorBody,
          429: errorBody,
          503: errorBody,
        },
      },
    },
    async (request) => {
      allow(mayReadPayloads(request.principal!), 'the codec server needs the ops or admin role');
      requireDecode(request.url);
      const payloads = readPayloads(request.body);
      try {
        return { payloads: (await codec.decode(payloads)).map(withSecretsRedacted).map(payloadToJson) };
      } catch (error) {
        throw new ApiError(400, 'CODEC_FAILED', `the payloads could not be decoded: ${(error as Error).message}`);
      }
    },
  );
}

/** The operation is the path's last segment; only `decode` is served, and `encode` is refused saying why. */
function requireDecode(url: string): void {
  const operation = url.split('?')[0].split('/').filter(Boolean).at(-1);
  if (operation === 'decode') return;
  throw new ApiError(
    404,
    'NOT_FOUND',
    operation === 'encode'
      ? 'the codec server only decodes: …/encode is not offered, so no credential can have payloads encrypted for the workers'
      : 'the codec server answers …/decode only',
  );
}

function readPayloads(body: { payloads: unknown[] }): Payload[] {
  return body.payloads.map((item, index) => payloadFromJson(item, `body.payloads.${index}`));
}

/**
 * A decoded payload as ops read it: JSON holding an order request (a workflow's input, an activity's) with its
 * `vendorConfig` secrets `[redacted]`; anything else (not JSON, or JSON without one) as it was, byte for byte.
 */
function withSecretsRedacted(payload: Payload): Payload {
  if (Buffer.from(payload.metadata?.['encoding'] ?? []).toString('utf8') !== 'json/plain') return payload;
  let value: unknown;
  try {
    value = defaultPayloadConverter.fromPayload(payload);
  } catch {
    return payload; // not JSON after all: it holds no request
  }
  const redacted = redactOrderRequest(value);
  return isDeepStrictEqual(value, redacted) ? payload : defaultPayloadConverter.toPayload(redacted);
}
