/** The order request's own fields (issue 2, item 3; spec 2.3 and 8), both ways. */
import test from 'ava';
import { checkOrderRequest, ROOT_PATH } from '../../domain/index.js';
import { orderRequestSchema } from '../../schemas/index.js';
import { validRequest } from './helpers/fixtures.js';

const pathsAndRules = (input: unknown) => checkOrderRequest(input).errors.map((error) => [error.path, error.rule]);

test('every valid example shape parses to the documented request type', (t) => {
  const parsed = orderRequestSchema.safeParse(
    validRequest('K9', {
      callbackUrl: 'https://tickets.example.com/hook',
      promoCode: 'SPRING',
      vnics: [{ description: 'WAN' }],
    }),
  );
  t.true(parsed.success);
});

for (const term of [1, 12, 24, 36, 48, 60]) {
  test(`term ${term} is accepted`, (t) => t.deepEqual(pathsAndRules(validRequest('K9', { term })), []));
}
for (const term of [0, 2, 6, 13, 72, 12.5]) {
  test(`term ${JSON.stringify(term)} is refused`, (t) => {
    t.deepEqual(checkOrderRequest(validRequest('K9', { term })).errors, [
      { path: 'term', rule: 'allowed-values', message: 'term must be one of 1, 12, 24, 36, 48, 60 (months)' },
    ]);
  });
}
for (const [term, given] of [
  ['12', 'a string'],
  [null, 'null'],
  [[12], 'an array'],
] as const) {
  test(`term ${JSON.stringify(term)} is refused as not a number`, (t) => {
    t.deepEqual(checkOrderRequest(validRequest('K9', { term })).errors, [
      {
        path: 'term',
        rule: 'type',
        message: `term must be a number, not ${given}: one of 1, 12, 24, 36, 48, 60 (months)`,
      },
    ]);
  });
}

test('a number where a word is expected is told as a type mistake too', (t) => {
  t.deepEqual(checkOrderRequest(validRequest('K9', { environment: 5 })).errors, [
    {
      path: 'environment',
      rule: 'type',
      message: 'environment must be a string, not a number: "staging" or "production"',
    },
  ]);
});

test('the request is a JSON object', (t) => {
  for (const input of [null, [], 'text', 42]) t.deepEqual(pathsAndRules(input), [[ROOT_PATH, 'type']]);
});

test('required top-level fields are named when missing', (t) => {
  const request = validRequest('K9');
  for (const field of [
    'ticketId',
    'requestedBy',
    'environment',
    'location',
    'image',
    'productName',
    'term',
    'vendorConfig',
  ])
    delete request[field];
  t.deepEqual(pathsAndRules(request).sort(), [
    ['environment', 'required'],
    ['image', 'required'],
    ['location', 'required'],
    ['productName', 'required'],
    ['requestedBy', 'required'],
    ['term', 'required'],
    ['ticketId', 'required'],
    ['vendorConfig', 'required'],
  ]);
});

test('labels are one visible line', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { ticketId: '' })), [['ticketId', 'length']]);
  t.deepEqual(pathsAndRules(validRequest('K9', { productName: '   ' })), [['productName', 'blank']]);
  t.deepEqual(pathsAndRules(validRequest('K9', { requestedBy: 'a\nb' })), [['requestedBy', 'forbidden-character']]);
  t.deepEqual(pathsAndRules(validRequest('K9', { productName: 'x'.repeat(201) })), [['productName', 'length']]);
});

test('environment is staging or production', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { environment: 'production' })), []);
  t.deepEqual(pathsAndRules(validRequest('K9', { environment: 'prod' })), [['environment', 'allowed-values']]);
});

test('location is {id} or a selector, not both and not empty', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { location: { id: 3 } })), []);
  t.deepEqual(
    pathsAndRules(validRequest('K9', { location: { name: 'Equinix SY1', market: 'AU', country: 'Australia' } })),
    [],
  );
  t.deepEqual(pathsAndRules(validRequest('K9', { location: { id: 3, name: 'x' } })), [
    ['location', 'location-selector'],
  ]);
  t.deepEqual(pathsAndRules(validRequest('K9', { location: {} })), [['location', 'location-selector']]);
  const negative = checkOrderRequest(validRequest('K9', { location: { id: -1 } }));
  t.deepEqual(
    negative.errors.map((error) => [error.path, error.rule, error.message]),
    [['location.id', 'range', 'id must be greater than 0']],
  );
  t.deepEqual(pathsAndRules(validRequest('K9', { location: { city: 'Sydney' } })).sort(), [
    ['location', 'location-selector'],
    ['location.city', 'unknown-field'],
  ]);
});

test('image is {id} or {vendor, product, version}', (t) => {
  t.deepEqual(
    pathsAndRules(validRequest('K9', { image: { vendor: 'Fortinet', product: 'FortiGate-VM', version: '7.2.9' } })),
    [],
  );
  t.deepEqual(pathsAndRules(validRequest('K9', { image: { vendor: 'Fortinet', product: 'FortiGate-VM' } })), [
    ['image.version', 'required'],
  ]);
  t.deepEqual(pathsAndRules(validRequest('K9', { image: { id: 4, vendor: 'Fortinet' } })), [
    ['image', 'image-selector'],
  ]);
  t.deepEqual(pathsAndRules(validRequest('K9', { image: { id: '4' } }))[0], ['image.id', 'type']);
});

test('size is an "MVE n/m" label', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { size: 'MVE 4/16' })), []);
  for (const size of ['4/16', 'MVE 4-16', 'mve 4/16', 'MVE 0/8', 'MEDIUM']) {
    t.deepEqual(pathsAndRules(validRequest('K9', { size })), [['size', 'format']], size);
  }
});

test('size is required (or the legacy productSize)', (t) => {
  const request = validRequest('K9');
  delete request['size'];
  t.deepEqual(pathsAndRules(request), [['size', 'required']]);
});

test('legacy productSize is translated with a deprecation warning', (t) => {
  const request = validRequest('K9', { productSize: 'LARGE' });
  delete request['size'];
  const result = checkOrderRequest(request);
  t.true(result.ok);
  t.deepEqual(
    result.warnings.map((warning) => [warning.path, warning.rule]),
    [['productSize', 'product-size-deprecated']],
  );
  t.regex(result.warnings[0].message, /LARGE means "MVE 8\/32"; write "size": "MVE 8\/32"/);
});

test('productSize and size agreeing: only the deprecation warning; disagreeing: an error', (t) => {
  const agreeing = checkOrderRequest(validRequest('K9', { size: 'MVE 2/8', productSize: 'SMALL' }));
  t.true(agreeing.ok);
  t.true(agreeing.warnings.some((warning) => warning.rule === 'product-size-deprecated'));
  const disagreeing = checkOrderRequest(validRequest('K9', { size: 'MVE 2/8', productSize: 'MEDIUM' }));
  t.deepEqual(
    disagreeing.errors.map((error) => [error.path, error.rule]),
    [['productSize', 'size-conflict']],
  );
});

test('an unknown productSize is refused with the legacy names', (t) => {
  const request = validRequest('K9', { productSize: 'HUGE' });
  delete request['size'];
  const result = checkOrderRequest(request);
  t.deepEqual(
    result.errors.map((error) => [error.path, error.rule]),
    [['productSize', 'allowed-values']],
  );
  t.regex(result.errors[0].message, /SMALL, MEDIUM, LARGE, X_LARGE_16, X_LARGE_32/);
});

test('promoCode: a string, null, or empty (treated as none, with a warning)', (t) => {
  t.deepEqual(checkOrderRequest(validRequest('K9', { promoCode: 'SPRING24' })).warnings, []);
  t.deepEqual(checkOrderRequest(validRequest('K9', { promoCode: null })).warnings, []);
  const empty = checkOrderRequest(validRequest('K9', { promoCode: '' }));
  t.true(empty.ok);
  t.deepEqual(
    empty.warnings.map((warning) => [warning.path, warning.rule]),
    [['promoCode', 'promo-code-empty']],
  );
  t.deepEqual(pathsAndRules(validRequest('K9', { promoCode: 5 })), [['promoCode', 'type']]);
});

test('callbackUrl is optional and http(s)', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { callbackUrl: 'http://127.0.0.1:8080/cb' })), []);
  t.deepEqual(pathsAndRules(validRequest('K9', { callbackUrl: 'ftp://example.com/x' })), [['callbackUrl', 'url']]);
  t.deepEqual(pathsAndRules(validRequest('K9', { callbackUrl: 'not a url' })), [['callbackUrl', 'url']]);
});

test('unknown top-level fields are refused by name', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { vnic: [{}] })), [['vnic', 'unknown-field']]);
});

test('vendorConfig must be an object', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { vendorConfig: 'ssh-rsa AAAA' })), [['vendorConfig', 'type']]);
  t.deepEqual(pathsAndRules(validRequest('K9', { vendorConfig: [] })), [['vendorConfig', 'type']]);
});

test('problems in several places are reported together', (t) => {
  const result = checkOrderRequest(
    validRequest('K6', {
      term: 13,
      size: 'MVE 2/8',
      vnics: [{}],
      vendorConfig: { adminPassword: 'short', manageLocally: false },
    }),
  );
  t.deepEqual(result.errors.map((error) => error.path).sort(), [
    'size',
    'term',
    'vendorConfig.adminPassword',
    'vendorConfig.fmcIpAddress',
    'vendorConfig.fmcRegistrationKey',
    'vnics',
  ]);
  t.is(result.kind, 'K6');
});

test('paths quote keys that are not plain names, so they stay unambiguous', (t) => {
  t.deepEqual(pathsAndRules(validRequest('K9', { 'a.b': 1 })), [['["a.b"]', 'unknown-field']]);
  t.deepEqual(pathsAndRules(validRequest('K9', { '': 1 })), [['[""]', 'unknown-field']]);
  const config = checkOrderRequest(validRequest('K9', { vendorConfig: { sshPublicKey: 'x', 'odd key': 1 } }));
  t.true(config.errors.some((error) => error.path === 'vendorConfig["odd key"]' && error.rule === 'unknown-field'));
});
