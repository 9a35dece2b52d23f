/**
 * Property: mutating valid requests at random never crashes the check; every refusal names a path and a
 * rule; and whatever the check accepts can be built into an order the server-side check accepts too.
 */
import fc from 'fast-check';
import test from 'ava';
import {
  APPLIANCE_KINDS,
  joinPath,
  ROOT_PATH,
  buildOrder,
  checkOrderObject,
  checkOrderRequest,
  KIND_IDS,
  type KindId,
} from '../../domain/index.js';
import { FAMILY, validRequest } from './helpers/fixtures.js';

const TOP_LEVEL = [
  'ticketId',
  'requestedBy',
  'environment',
  'location',
  'image',
  'kind',
  'productName',
  'term',
  'size',
  'productSize',
  'promoCode',
  'vendorConfig',
  'vnics',
  'callbackUrl',
];
const ALL_FIELDS = [...new Set(KIND_IDS.flatMap((kind) => APPLIANCE_KINDS[kind].fields.map((field) => field.name)))];

/** Values a careless ticket might carry: any JSON, plus near-misses of the real vocabulary. */
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    'MVE 2/8',
    'MVE 8/32',
    'MVE 12/48',
    'SMALL',
    'LARGE',
    'latest',
    'K6',
    'K15B',
    '',
    ' ',
    true,
    false,
    0,
    12,
    61,
    -1,
    null,
  ),
  fc.string({ maxLength: 40 }),
);

type Mutation =
  | { type: 'setTop'; key: string; value: unknown }
  | { type: 'deleteTop'; key: string }
  | { type: 'setField'; key: string; value: unknown }
  | { type: 'deleteField'; key: string }
  | { type: 'vnics'; count: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    type: fc.constant('setTop' as const),
    key: fc.oneof(fc.constantFrom(...TOP_LEVEL), fc.string({ maxLength: 8 })),
    value,
  }),
  fc.record({ type: fc.constant('deleteTop' as const), key: fc.constantFrom(...TOP_LEVEL) }),
  fc.record({
    type: fc.constant('setField' as const),
    key: fc.oneof(fc.constantFrom(...ALL_FIELDS, 'imageId', 'mveLabel', 'vendor'), fc.string({ maxLength: 8 })),
    value,
  }),
  fc.record({ type: fc.constant('deleteField' as const), key: fc.constantFrom(...ALL_FIELDS) }),
  fc.record({ type: fc.constant('vnics' as const), count: fc.integer({ min: 0, max: 7 }) }),
);

function mutate(kind: KindId, mutations: readonly Mutation[]): Record<string, unknown> {
  const request = structuredClone(validRequest(kind));
  for (const change of mutations) {
    const config = request['vendorConfig'];
    const editable =
      typeof config === 'object' && config !== null && !Array.isArray(config)
        ? (config as Record<string, unknown>)
        : undefined;
    if (change.type === 'setTop') request[change.key] = change.value;
    else if (change.type === 'deleteTop') delete request[change.key];
    else if (change.type === 'setField' && editable) editable[change.key] = change.value;
    else if (change.type === 'deleteField' && editable) delete editable[change.key];
    else if (change.type === 'vnics') request['vnics'] = Array.from({ length: change.count }, () => ({}));
  }
  return request;
}

test('mutated requests: no crash, every refusal names a path and rule, every acceptance builds', (t) => {
  let accepted = 0;
  fc.assert(
    fc.property(fc.constantFrom(...KIND_IDS), fc.array(mutation, { minLength: 1, maxLength: 4 }), (kind, mutations) => {
      const input = mutate(kind, mutations);
      const result = checkOrderRequest(input);
      // A path starts at a field of the request (or the request itself), so it points somewhere real.
      const roots = [...Object.keys(input), ...TOP_LEVEL].map((key) => joinPath('', key));
      const pointsIntoRequest = (path: string) =>
        path === ROOT_PATH ||
        roots.some((root) => path === root || path.startsWith(`${root}.`) || path.startsWith(`${root}[`));
      for (const entry of [...result.errors, ...result.warnings]) {
        if (typeof entry.path !== 'string' || entry.path === '' || entry.rule === '' || entry.message === '')
          return false;
        if (!pointsIntoRequest(entry.path)) return false;
      }
      if (!result.ok) return result.errors.length > 0;
      accepted += 1;
      // Accepted: the engine must be able to build it, and the server-side view must agree.
      const request = result.request!;
      const family = FAMILY[result.kind!] ?? { vendor: 'Acme', product: 'Firewall' };
      const kindMap = FAMILY[result.kind!] ? undefined : [{ ...family, kinds: [result.kind!] }];
      const image = { id: 9, ...family };
      const built = buildOrder(request, { id: 3 }, image, kindMap ? { kindMap } : {});
      return checkOrderObject(built.order, image, kindMap ? { kindMap } : {}).ok;
    }),
    { numRuns: 400 },
  );
  // Some mutations are harmless (an optional field removed, a valid size): the build branch must be exercised.
  t.true(accepted > 10, `only ${accepted} mutated requests were accepted`);
});

test('arbitrary JSON as a whole request: no crash, and a refusal always names a path', (t) => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 3 }), (input) => {
      const result = checkOrderRequest(input);
      return result.ok === false && result.errors.length > 0 && result.errors.every((entry) => entry.path !== '');
    }),
    { numRuns: 300 },
  );
  t.pass();
});
