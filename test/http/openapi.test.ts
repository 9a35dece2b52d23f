/**
 * The OpenAPI document the server publishes at /openapi.json: valid OpenAPI 3 (checked with
 * @seriousme/openapi-schema-validator against the official schemas), and a complete, exact map of the
 * routes fastify actually registers (collected with an onRoute hook on a freshly built server).
 */
import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { Keyring } from '../../codec/index.js';
import { API_VERSION, buildApiServer, type ApiContext } from '../../client/http/index.js';
import { ORDER_STATES } from '../../domain/lifecycle/index.js';
import { json } from '../helpers/json.js';

/** The parts of a JSON Schema these tests read. */
interface Schema {
  description?: string;
  required?: string[];
  additionalProperties?: boolean;
  properties?: Record<string, Schema>;
  enum?: unknown[];
}
interface Operation {
  summary?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }>; required?: boolean };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  security?: unknown[];
  components?: { securitySchemes?: Record<string, { description?: string }> };
  paths: Record<string, Record<string, Operation>>;
}

const test = anyTest as TestFn<{
  app: FastifyInstance;
  url: string;
  routes: Array<{ method: string; url: string }>;
  document: Document;
}>;

/**
 * Nothing the document needs touches the context at build time: the routes use it per request, and no request
 * here reaches one that would. A stand-in keeps this test free of Temporal and PostgreSQL.
 */
function standInContext(): ApiContext {
  const unused = new Proxy(
    {},
    {
      get: (_target, name) => {
        throw new Error(`the OpenAPI test should not use the context (${String(name)})`);
      },
    },
  );
  // Every handler runs within a deadline for its Temporal calls; none here makes one.
  const service = Object.assign(Object.create(unused) as ApiContext['service'], {
    withDeadline: <T>(_deadline: number, run: () => Promise<T>) => run(),
  });
  return {
    service,
    authenticator: unused as ApiContext['authenticator'],
    codecKeys: Keyring.fromText(`openapi:${randomBytes(32).toString('base64')}`),
    codecCorsOrigins: [],
    log: () => undefined,
  };
}

test.before(async (t) => {
  // Every route the server registers, as fastify sees it: an onRoute hook added to the instance the moment
  // buildApiServer creates it (fastify publishes each new instance on this diagnostics channel).
  const routes: Array<{ method: string; url: string }> = [];
  const onInitialization = (message: unknown) => {
    (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) routes.push({ method: String(method), url: route.url });
    });
  };
  diagnostics.subscribe('fastify.initialization', onInitialization);
  let app: FastifyInstance;
  try {
    app = await buildApiServer({
      context: standInContext(),
      readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
    });
  } finally {
    diagnostics.unsubscribe('fastify.initialization', onInitialization);
  }
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const response = await fetch(`${url}/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /openapi.json: ${response.status}`);
  if (!response.headers.get('content-type')?.startsWith('application/json'))
    throw new Error(`content type ${response.headers.get('content-type')}`);
  t.context = { app, url, routes, document: await json<Document>(response) };
});
test.after.always(async (t) => {
  await t.context.app?.close();
});

/** fastify's `/a/:b/*` as an OpenAPI path template, the way @fastify/swagger writes it: `/a/{b}/{*}`. */
const templateOf = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');

/** The routes a client can call: not the document itself, not the HEAD twins of GETs nor CORS preflights. */
const callableRoutes = (routes: Array<{ method: string; url: string }>) =>
  routes.filter((route) => route.url !== '/openapi.json' && route.method !== 'HEAD' && route.method !== 'OPTIONS');

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );

test('/openapi.json is a valid OpenAPI 3 document', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(
    structuredClone(t.context.document) as unknown as Parameters<Validator['validate']>[0],
  );
  t.true(result.valid, JSON.stringify(result.errors, null, 2));
  t.is(validator.version, '3.0');
  t.is(t.context.document.info.version, API_VERSION);
  t.is(t.context.document.info.title, 'mve-orders');
});

test('the hook saw the routes (the comparison below is not vacuous)', (t) => {
  const seen = callableRoutes(t.context.routes).map((route) => `${route.method} ${route.url}`);
  t.true(seen.length >= 13, seen.join(', '));
  for (const expected of [
    'POST /api/v1/orders',
    'GET /api/v1/orders/:orderId',
    'POST /api/v1/orders/:orderId/approve',
    'POST /codec/*',
    'GET /healthz',
    'GET /metrics',
  ]) {
    t.true(seen.includes(expected), expected);
  }
  t.true(
    t.context.routes.some((route) => route.method === 'HEAD'),
    'HEAD twins exist and are left out on purpose',
  );
  t.true(
    t.context.routes.some((route) => route.method === 'OPTIONS' && route.url === '/codec/*'),
    'the CORS preflight route exists and is left out on purpose',
  );
});

test('every route the server registers is in the document, and the document names no route the server lacks', (t) => {
  const { document, routes } = t.context;
  const registered = callableRoutes(routes)
    .map((route) => `${route.method.toLowerCase()} ${templateOf(route.url)}`)
    .sort();
  const documented = operationsOf(document)
    .map(({ method, path }) => `${method} ${path}`)
    .sort();
  t.deepEqual(documented, [...new Set(registered)]);
  t.false(Object.keys(document.paths).includes('/openapi.json'), 'the document itself is hidden');
});

test('each path parameter is declared, required, in the path; each operation has a summary and responses', (t) => {
  for (const { path, method, operation } of operationsOf(t.context.document)) {
    const where = `${method.toUpperCase()} ${path}`;
    t.truthy(operation.summary, `${where} has a summary`);
    t.true(Object.keys(operation.responses).length > 0, `${where} has responses`);
    for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
      const parameter = operation.parameters?.find((candidate) => candidate.in === 'path' && candidate.name === name);
      t.truthy(parameter, `${where} declares {${name}}`);
      t.true(parameter?.required, `${where}: {${name}} is required`);
    }
  }
});

test('security: bearer by default, the /api/ and /codec/ routes need it; health, readiness and metrics are open', (t) => {
  const { document } = t.context;
  t.deepEqual(document.components?.securitySchemes?.['bearer'], {
    type: 'http',
    scheme: 'bearer',
    description: document.components?.securitySchemes?.['bearer']?.description,
  });
  t.deepEqual(document.security, [{ bearer: [] }]);
  for (const { path, method, operation } of operationsOf(document)) {
    const open = operation.security !== undefined && operation.security.length === 0;
    if (path.startsWith('/api/') || path.startsWith('/codec/')) t.false(open, `${method} ${path} must not be open`);
    else t.true(open, `${method} ${path} is open`);
  }
});

test('the shapes come from the zod schemas: request bodies, refusals, order states', (t) => {
  const { paths } = t.context.document;
  const approve = paths['/api/v1/orders/{orderId}/approve']['post'];
  const body = approve.requestBody!.content['application/json'].schema;
  t.true(approve.requestBody!.required);
  t.deepEqual([...body.required!].sort(), ['currency', 'monthlyRate']);
  t.is(body.additionalProperties, false, 'a vote names no approver: unknown fields are refused');
  t.deepEqual(Object.keys(body.properties!).sort(), ['comment', 'currency', 'monthlyRate']);
  for (const status of ['400', '401', '403', '404', '409', '422']) {
    const error = approve.responses[status]?.content?.['application/json']?.schema;
    t.deepEqual(error?.required, ['error'], `${status} answers the error body`);
  }
  const vote = approve.responses['200'].content!['application/json'].schema;
  t.deepEqual(vote.properties!['state'].enum, [...ORDER_STATES]);

  const list = paths['/api/v1/orders']['get'];
  const query = Object.fromEntries((list.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p]));
  t.deepEqual(Object.keys(query).sort(), ['cursor', 'environment', 'limit', 'requester', 'status']);
  t.deepEqual(query['status'].schema!.enum, [...ORDER_STATES]);
  t.deepEqual(query['environment'].schema!.enum, ['staging', 'production']);

  const me = paths['/api/v1/me']['get'].responses['200'].content!['application/json'].schema;
  t.deepEqual(me.properties!['via'].enum, ['oidc', 'token']);
});
