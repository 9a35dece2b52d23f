/** vNIC counts per kind (spec 2.5, 2.7) and size restrictions per kind (2.5, 2.6), both ways. */
import test from 'ava';
import { APPLIANCE_KINDS, checkOrderRequest, KIND_IDS, SIZE_LABELS, type KindId } from '../../domain/index.js';
import { validRequest } from './helpers/fixtures.js';

const vnics = (count: number) => Array.from({ length: count }, (_, index) => ({ description: `nic ${index}` }));

const STATED: Record<KindId, { min: number; max: number }> = {
  K1: { min: 1, max: 5 },
  K2: { min: 1, max: 1 },
  K3: { min: 2, max: 5 },
  K4: { min: 1, max: 5 },
  K5: { min: 1, max: 1 },
  K6: { min: 4, max: 5 },
  K7: { min: 2, max: 2 },
  K8: { min: 1, max: 5 },
  K9: { min: 1, max: 5 },
  K10: { min: 3, max: 5 },
  K11: { min: 2, max: 5 },
  K12: { min: 1, max: 5 },
  K13: { min: 2, max: 5 },
  K14: { min: 1, max: 5 },
  K15A: { min: 4, max: 5 },
  K15B: { min: 3, max: 5 },
  K16: { min: 2, max: 5 },
  K17: { min: 1, max: 5 },
};

for (const kind of KIND_IDS) {
  const { min, max } = STATED[kind];
  test(`${kind} accepts ${min} and ${max} vNICs`, (t) => {
    t.deepEqual(checkOrderRequest(validRequest(kind, { vnics: vnics(min) })).errors, []);
    t.deepEqual(checkOrderRequest(validRequest(kind, { vnics: vnics(max) })).errors, []);
  });
  if (min > 1) {
    test(`${kind} refuses ${min - 1} vNICs (minimum ${min})`, (t) => {
      const result = checkOrderRequest(validRequest(kind, { vnics: vnics(min - 1) }));
      t.deepEqual(
        result.errors.map((error) => [error.path, error.rule]),
        [['vnics', 'vnics-min']],
      );
      t.regex(result.errors[0].message, new RegExp(`at least ${min} vNICs; ${min - 1} given`));
    });
  }
  test(`${kind} refuses ${max + 1} vNICs (maximum ${max})`, (t) => {
    const result = checkOrderRequest(validRequest(kind, { vnics: vnics(max + 1) }));
    t.false(result.ok);
    // Above 5 the request's own shape refuses it; below, the kind's maximum does.
    const expected = max === 5 ? ['vnics', 'count'] : ['vnics', 'vnics-max'];
    t.true(
      result.errors.some((error) => error.path === expected[0] && error.rule === expected[1]),
      JSON.stringify(result.errors),
    );
  });
  test(`${kind} with vnics omitted is valid and warns that the API allocates the minimum`, (t) => {
    const request = validRequest(kind);
    delete request['vnics'];
    const result = checkOrderRequest(request);
    t.true(result.ok);
    const warning = result.warnings.find((entry) => entry.rule === 'vnics-default');
    t.truthy(warning);
    t.is(warning!.path, 'vnics');
    t.true(warning!.message.includes(String(min)));
  });
}

test('K14 minimum is not stated by the spec: 1 is assumed and the warning says so', (t) => {
  t.false(APPLIANCE_KINDS.K14.vnics.minDocumented);
  const request = validRequest('K14');
  delete request['vnics'];
  const warning = checkOrderRequest(request).warnings.find((entry) => entry.rule === 'vnics-default');
  t.regex(warning!.message, /not stated by the spec for K14; at least 1/);
});

test('an empty vnics array is refused: omit it instead', (t) => {
  const result = checkOrderRequest(validRequest('K9', { vnics: [] }));
  t.deepEqual(
    result.errors.map((error) => [error.path, error.rule]),
    [['vnics', 'count']],
  );
  t.regex(result.errors[0].message, /omit vnics/);
});

test('a vNIC takes only a string description', (t) => {
  const result = checkOrderRequest(validRequest('K9', { vnics: [{ description: 7 }, { name: 'x' }] }));
  t.deepEqual(
    result.errors.map((error) => [error.path, error.rule]),
    [
      ['vnics.0.description', 'type'],
      ['vnics.1.name', 'unknown-field'],
    ],
  );
});

const SIZE_RULES: Record<string, { accepted: string[]; refused: string[] }> = {
  K6: { accepted: ['MVE 4/16', 'MVE 8/32', 'MVE 16/64', 'MVE 32/128'], refused: ['MVE 2/8'] },
  K15A: { accepted: ['MVE 2/8', 'MVE 4/16', 'MVE 8/32'], refused: ['MVE 16/64', 'MVE 32/128'] },
  K15B: { accepted: ['MVE 8/32'], refused: ['MVE 2/8', 'MVE 4/16', 'MVE 16/64', 'MVE 32/128'] },
  K9: { accepted: [...SIZE_LABELS], refused: [] },
};

for (const [kind, { accepted, refused }] of Object.entries(SIZE_RULES) as Array<
  [KindId, { accepted: string[]; refused: string[] }]
>) {
  for (const size of accepted) {
    test(`${kind} accepts size ${size}`, (t) => {
      t.deepEqual(checkOrderRequest(validRequest(kind, { size })).errors, []);
    });
  }
  for (const size of refused) {
    test(`${kind} refuses size ${size}`, (t) => {
      const result = checkOrderRequest(validRequest(kind, { size }));
      t.deepEqual(
        result.errors.map((error) => [error.path, error.rule]),
        [['size', 'size-not-for-kind']],
      );
    });
  }
}

test('a legacy productSize the kind refuses is reported on productSize', (t) => {
  const request = validRequest('K6', { productSize: 'SMALL' });
  delete request['size'];
  const result = checkOrderRequest(request);
  t.deepEqual(
    result.errors.map((error) => [error.path, error.rule]),
    [['productSize', 'size-not-for-kind']],
  );
});
