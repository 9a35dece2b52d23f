/** The (vendor, product) → kinds table, its override file, and how the kind is resolved from it and from fields. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import {
  checkOrderRequest,
  DEFAULT_KIND_MAP,
  KIND_IDS,
  KindMapError,
  kindsForFamily,
  mergeKindMap,
} from '../../domain/index.js';
import { kindMapFromEnv, loadKindMap } from '../../infra/catalog/index.js';
import { validRequest, validVendorConfig } from './helpers/fixtures.js';
import { openSshKey } from './helpers/ssh-keys.js';

const directory = mkdtempSync(join(tmpdir(), 'kind-map-'));
function writeJson(name: string, body: unknown): string {
  const file = join(directory, name);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

test('the default map reaches every kind but K5 (K5 is reached by configuration or signature)', (t) => {
  const reached = new Set(DEFAULT_KIND_MAP.flatMap((entry) => entry.kinds));
  t.deepEqual(
    KIND_IDS.filter((kind) => !reached.has(kind)),
    ['K5'],
  );
});

test('families match case-insensitively, ignoring surrounding spaces', (t) => {
  t.deepEqual(kindsForFamily(DEFAULT_KIND_MAP, ' fortinet ', 'FORTIGATE-VM'), ['K9']);
  t.is(kindsForFamily(DEFAULT_KIND_MAP, 'Fortinet', 'FortiGate'), undefined);
});

test('an override replaces a family, adds new ones, and can replace the defaults wholesale', (t) => {
  const merged = mergeKindMap(DEFAULT_KIND_MAP, [
    { vendor: 'juniper', product: 'VSRX', kinds: ['K12'] },
    { vendor: 'Acme', product: 'Firewall', kinds: ['K5'] },
  ]);
  t.deepEqual(kindsForFamily(merged, 'Juniper', 'vSRX'), ['K12']);
  t.deepEqual(kindsForFamily(merged, 'Acme', 'Firewall'), ['K5']);
  t.deepEqual(kindsForFamily(merged, 'Fortinet', 'FortiGate-VM'), ['K9']);
  t.is(merged.length, DEFAULT_KIND_MAP.length + 1);
  const replaced = mergeKindMap(DEFAULT_KIND_MAP, {
    replaceDefaults: true,
    entries: [{ vendor: 'Acme', product: 'Firewall', kinds: ['K5'] }],
  });
  t.is(replaced.length, 1);
});

test('loadKindMap reads a file; MVE_KIND_MAP names it', (t) => {
  const file = writeJson('map.json', {
    entries: [{ vendor: 'Acme', product: 'Firewall', kinds: ['K5'], note: 'ours' }],
  });
  t.deepEqual(kindsForFamily(loadKindMap(file), 'Acme', 'Firewall'), ['K5']);
  t.deepEqual(kindsForFamily(kindMapFromEnv({ MVE_KIND_MAP: file }), 'Acme', 'Firewall'), ['K5']);
  t.is(kindMapFromEnv({}), DEFAULT_KIND_MAP);
});

test('a bad override file is an error naming the file and the problem', (t) => {
  const notJson = writeJson('broken.json', '{ nope');
  t.throws(() => loadKindMap(notJson), { instanceOf: KindMapError, message: /broken\.json is not readable JSON/ });
  const badKind = writeJson('bad-kind.json', [{ vendor: 'Acme', product: 'X', kinds: ['K99'] }]);
  t.throws(() => loadKindMap(badKind), {
    instanceOf: KindMapError,
    message: /bad-kind\.json is not valid \(entries\.0\.kinds\.0/,
  });
  const noKinds = writeJson('no-kinds.json', [{ vendor: 'Acme', product: 'X', kinds: [] }]);
  t.throws(() => loadKindMap(noKinds), { instanceOf: KindMapError });
  t.throws(() => loadKindMap(join(directory, 'missing.json')), { instanceOf: KindMapError, message: /missing\.json/ });
});

test('an image family the map does not know is an error saying what to add', (t) => {
  const result = checkOrderRequest(
    validRequest('K9', { image: { vendor: 'Acme', product: 'Firewall', version: 'latest' } }),
  );
  t.false(result.ok);
  const error = result.errors.find((entry) => entry.rule === 'kind-unknown-image')!;
  t.is(error.path, 'image');
  t.regex(error.message, /\{"vendor":"Acme","product":"Firewall","kinds":\["K…"\]\}/);
  t.regex(error.message, /MVE_KIND_MAP/);
});

test('the override reaches K5 through configuration', (t) => {
  const kindMap = mergeKindMap(DEFAULT_KIND_MAP, [{ vendor: 'Acme', product: 'Firewall', kinds: ['K5'] }]);
  const request = validRequest('K5', {
    image: { vendor: 'Acme', product: 'Firewall', version: 'latest' },
    vnics: [{}],
  });
  delete request['kind'];
  const result = checkOrderRequest(request, { kindMap });
  t.is(result.kind, 'K5');
  t.deepEqual(result.errors, []);
});

test('one family allowing two kinds: the supplied fields pick the kind (Cisco C8000: K1 or K4)', (t) => {
  const image = { vendor: 'Cisco', product: 'C8000', version: 'latest' };
  t.is(checkOrderRequest(validRequest('K1', { image })).kind, 'K1');
  t.is(checkOrderRequest(validRequest('K4', { image })).kind, 'K4');
  const neither = checkOrderRequest(validRequest('K9', { image, vendorConfig: { token: 'x' } }));
  t.deepEqual(
    neither.errors.map((entry) => [entry.path, entry.rule]),
    [['vendorConfig', 'kind-no-match']],
  );
  t.regex(neither.errors[0].message, /K1 needs sshPublicKey; K4 needs cloudInit/);
});

test('a kind hint must be a kind the family allows', (t) => {
  const image = { vendor: 'Cisco', product: 'C8000', version: 'latest' };
  const wrong = checkOrderRequest(validRequest('K1', { image, kind: 'K9' }));
  t.deepEqual(
    wrong.errors.map((entry) => [entry.path, entry.rule]),
    [['kind', 'kind-not-allowed']],
  );
  const unknown = checkOrderRequest(validRequest('K1', { image, kind: 'K99' }));
  t.deepEqual(
    unknown.errors.map((entry) => [entry.path, entry.rule]),
    [['kind', 'kind-unknown']],
  );
  t.is(checkOrderRequest(validRequest('K1', { image, kind: 'K1' })).kind, 'K1');
  const notText = checkOrderRequest(validRequest('K1', { image, kind: 1 }));
  t.deepEqual(
    notText.errors.map((entry) => [entry.path, entry.rule]),
    [['kind', 'type']],
  );
  t.is(notText.kind, 'K1');
});

test('without a catalog, an image given by id: the field signature picks the kind when it is unambiguous', (t) => {
  const byId = (kind: Parameters<typeof validRequest>[0], vendorConfig = validVendorConfig(kind)) =>
    checkOrderRequest({ ...validRequest(kind, { image: { id: 77 }, vendorConfig }), kind: undefined });
  for (const kind of ['K2', 'K3', 'K4', 'K5', 'K6', 'K7', 'K10', 'K14', 'K16', 'K17'] as const) {
    const result = byId(kind);
    t.is(result.kind, kind, kind);
    t.deepEqual(result.errors, [], kind);
  }
  // K9's optional licenseData sets it apart from K1.
  t.is(byId('K9', { ...validVendorConfig('K9'), licenseData: 'TElDRU5TRQ==' }).kind, 'K9');
  // The onboarding fields belong to K11 only.
  t.is(
    byId('K11', { ...validVendorConfig('K11'), onboardDeviceId: '3f1c2a9e-7b4d-4e8f-9a6b-2c5d8e1f0a3b' }).kind,
    'K11',
  );
  // Formats break ties: a bcrypt hash is K13's, a SHA-1 hex digest K14's.
  t.is(byId('K13').kind, 'K13');
  // Only ED25519 + sha512crypt among K8/K11/K12 passes K8's rules.
  t.is(byId('K8').kind, 'K8');
});

test('an ambiguous signature is an error that says what to add', (t) => {
  // sshPublicKey alone fits K1 and K9 alike.
  const result = checkOrderRequest({ ...validRequest('K1', { image: { id: 77 } }) });
  t.deepEqual(
    result.errors.map((entry) => [entry.path, entry.rule]),
    [['vendorConfig', 'kind-ambiguous']],
  );
  t.regex(
    result.errors[0].message,
    /fits kinds K1, K9 alike; name the image by \{vendor, product, version\}.*add "kind"/,
  );
  // sha512crypt + RSA 2048 fits K8, K11 and K12.
  const three = checkOrderRequest(validRequest('K11', { image: { id: 77 } }));
  t.regex(three.errors[0].message, /K8, K11, K12/);
});

test('K15 models share their fields: size or vNIC count tells them apart, else "kind" does', (t) => {
  const byId = (overrides: Record<string, unknown>) =>
    checkOrderRequest(validRequest('K15A', { image: { id: 77 }, ...overrides }));
  t.is(byId({ size: 'MVE 2/8' }).kind, 'K15A');
  t.is(byId({ size: 'MVE 8/32', vnics: [{}, {}, {}] }).kind, 'K15B');
  t.is(byId({ size: 'MVE 8/32' }).errors[0].rule, 'kind-ambiguous');
  t.is(byId({ size: 'MVE 8/32', kind: 'K15B' }).kind, 'K15B');
});

test('fields that only one kind knows pick it, so the check can name what is missing', (t) => {
  const result = checkOrderRequest(
    validRequest('K17', { image: { id: 77 }, vendorConfig: { directorAddress: 'director.example.net' } }),
  );
  t.is(result.kind, 'K17');
  t.deepEqual(result.errors.map((entry) => entry.path).sort(), [
    'vendorConfig.controllerAddress',
    'vendorConfig.localAuth',
    'vendorConfig.remoteAuth',
    'vendorConfig.serialNumber',
  ]);
});

test('fields that match no kind at all are an error', (t) => {
  const result = checkOrderRequest(
    validRequest('K9', { image: { id: 77 }, vendorConfig: { sshPublicKey: openSshKey('rsa2048'), token: 'x' } }),
  );
  t.deepEqual(
    result.errors.map((entry) => [entry.path, entry.rule]),
    [['vendorConfig', 'kind-no-match']],
  );
});
