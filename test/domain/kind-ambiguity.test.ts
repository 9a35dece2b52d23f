/**
 * A request whose fields fit several kinds, with a field every one of them refuses for the same reason: the refusal
 * names that field and its rule, as the kind's own check does, not the ambiguity alone. From the example of K15's
 * model A (K15A and K15B share their fields; size and vNIC count tell them apart).
 */
import { readFileSync } from 'node:fs';
import test from 'ava';
import { checkOrderObject, checkOrderRequest, mergeKindMap, DEFAULT_KIND_MAP } from '../../domain/index.js';

const example = JSON.parse(
  readFileSync(new URL('../../examples/k15a-controller-keys-model-a.json', import.meta.url), 'utf8'),
) as Record<string, unknown> & { vendorConfig: Record<string, unknown>; vnics: unknown[] };

/** 16 hex digits where both models take 40. */
const SHORT_SECRET = '0123456789abcdef';

/** The example with its image given by id: no family, so every kind whose fields fit is a candidate. */
function byImageId(overrides: Record<string, unknown>, vendorConfig: Record<string, unknown> = {}) {
  return checkOrderRequest({
    ...example,
    image: { id: 77 },
    ...overrides,
    vendorConfig: { ...example.vendorConfig, ...vendorConfig },
  });
}

const pathsAndRules = (errors: ReadonlyArray<{ path: string; rule: string }>) =>
  errors.map((entry) => [entry.path, entry.rule]);

test('a field both K15 models refuse alike is named with its rule, beside the ambiguity that remains', (t) => {
  // MVE 8/32 and four vNICs: both models take them, so nothing but `kind` tells them apart.
  const result = byImageId({ size: 'MVE 8/32' }, { secretKey: SHORT_SECRET });
  t.false(result.ok);
  t.deepEqual(pathsAndRules(result.errors), [
    ['vendorConfig.secretKey', 'hex'],
    ['vendorConfig', 'kind-ambiguous'],
  ]);
  // The very issue the kind's own check gives when the image names the model.
  const named = checkOrderRequest({ ...example, vendorConfig: { ...example.vendorConfig, secretKey: SHORT_SECRET } });
  t.is(named.kind, 'K15A');
  t.deepEqual(named.errors, [result.errors[0]]);
  t.regex(result.errors[1].message, /fits kinds K15A, K15B alike/);
  t.false(JSON.stringify(result.errors).includes(SHORT_SECRET), 'the secret is not echoed');

  // Mended, the ambiguity alone is left: the field was the only fault.
  t.deepEqual(pathsAndRules(byImageId({ size: 'MVE 8/32' }).errors), [['vendorConfig', 'kind-ambiguous']]);
});

test('when only one model passes everything but the shared fault, it is the kind and its checks name the field', (t) => {
  // MVE 2/8 is model A's alone (model B takes MVE 8/32 only).
  const result = byImageId({ size: 'MVE 2/8' }, { secretKey: SHORT_SECRET });
  t.is(result.kind, 'K15A');
  t.deepEqual(pathsAndRules(result.errors), [['vendorConfig.secretKey', 'hex']]);
  t.is(result.errors[0].message, 'secretKey must be 40 hexadecimal characters, not 16');

  // Three vNICs are too few for model A: model B, with the same fault named.
  const modelB = byImageId({ size: 'MVE 8/32', vnics: example.vnics.slice(0, 3) }, { ionKey: 'not-an-ion-key' });
  t.is(modelB.kind, 'K15B');
  t.deepEqual(pathsAndRules(modelB.errors), [['vendorConfig.ionKey', 'format']]);
});

test('several shared faults are each named; a limit each model words its own way keeps both wordings', (t) => {
  // Two vNICs: model A needs 4, model B 3. A size neither takes.
  const result = byImageId(
    { size: 'MVE 16/64', vnics: example.vnics.slice(0, 2) },
    { ionKey: 'not-an-ion-key', secretKey: SHORT_SECRET },
  );
  t.deepEqual(pathsAndRules(result.errors), [
    ['vendorConfig.ionKey', 'format'],
    ['vendorConfig.secretKey', 'hex'],
    ['size', 'size-not-for-kind'],
    ['vnics', 'vnics-min'],
    ['vendorConfig', 'kind-ambiguous'],
  ]);
  const vnics = result.errors.find((entry) => entry.path === 'vnics')!;
  t.regex(vnics.message, /kind K15A needs at least 4 vNICs; 2 given; and kind K15B needs at least 3 vNICs; 2 given/);
});

test('the legacy productSize is named where it was given', (t) => {
  // LARGE is MVE 8/32; X_LARGE_16 is MVE 16/64, which neither model takes.
  const result = byImageId({ size: undefined, productSize: 'X_LARGE_16' });
  t.deepEqual(pathsAndRules(result.errors), [
    ['productSize', 'size-not-for-kind'],
    ['vendorConfig', 'kind-ambiguous'],
  ]);
});

test('faults that differ from model to model name no field: the ambiguity is told', (t) => {
  // MVE 2/8 is too small for model B, three vNICs too few for model A: each refuses something else.
  const result = byImageId({ size: 'MVE 2/8', vnics: example.vnics.slice(0, 3) });
  t.deepEqual(pathsAndRules(result.errors), [['vendorConfig', 'kind-ambiguous']]);
});

test("the order object's check (an operator's family of both models) names the field too", (t) => {
  const kindMap = mergeKindMap(DEFAULT_KIND_MAP, [{ vendor: 'Palo Alto', product: 'ION', kinds: ['K15A', 'K15B'] }]);
  const order = {
    productName: 'Perth ION',
    productType: 'MVE',
    term: 12,
    locationId: 109,
    vendorConfig: {
      imageId: 42,
      mveLabel: 'MVE 8/32',
      ionKey: example.vendorConfig['ionKey'],
      secretKey: SHORT_SECRET,
    },
    vnics: example.vnics,
  };
  const result = checkOrderObject(order, { vendor: 'Palo Alto', product: 'ION' }, { kindMap });
  t.deepEqual(pathsAndRules(result.errors), [
    ['vendorConfig.secretKey', 'hex'],
    ['vendorConfig', 'kind-ambiguous'],
  ]);
  t.is(result.errors[1].message, 'vendorConfig fits kinds K15A, K15B alike; add "kind" with one of them');
});
