/** `mve-orders check` through the real binary: exit codes, human and JSON output, catalogs, stdin. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { APPLIANCE_KINDS, checkOrderRequest } from '../../domain/index.js';
import { runCli } from '../helpers/cli.js';
import { IMAGES_BODY, LOCATIONS_BODY } from '../domain/helpers/catalogs.js';
import { validRequest } from '../domain/helpers/fixtures.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const exampleFiles = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith('.json'))
  .sort();
const directory = mkdtempSync(join(tmpdir(), 'check-cli-'));
function writeFile(name: string, body: unknown): string {
  const file = join(directory, name);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

interface JsonReport {
  ok: boolean;
  kind: string | null;
  errors: Array<{ path: string; rule: string; message: string }>;
  warnings: Array<{ path: string; rule: string; message: string }>;
}

test('there is one example per appliance kind', (t) => {
  const kinds = exampleFiles.map((name) => name.split('-')[0].toUpperCase().replace(/^K0/, 'K'));
  t.deepEqual(kinds, Object.keys(APPLIANCE_KINDS));
});

for (const name of exampleFiles) {
  const file = join(EXAMPLES, name);
  test(`check examples/${name} exits 0`, async (t) => {
    const result = await runCli(['check', file]);
    t.is(result.code, 0, result.stdout + result.stderr);
    t.regex(result.stdout, /^valid \(kind K\d+[AB]?\)/);
  });

  test(`check of a broken examples/${name} exits 1 naming the field`, async (t) => {
    const request = JSON.parse(readFileSync(file, 'utf8')) as { vendorConfig: Record<string, unknown> };
    const { kind } = checkOrderRequest(request);
    if (!kind) return t.fail('the example resolves to no kind');
    const field = APPLIANCE_KINDS[kind].fields.find((entry) => entry.presence === 'required')!.name;
    request.vendorConfig[field] = 12345;
    const broken = await runCli(['check', '-', '--json'], { stdin: JSON.stringify(request) });
    t.is(broken.code, 1);
    const brokenReport = JSON.parse(broken.stdout) as JsonReport;
    t.false(brokenReport.ok);
    t.deepEqual(
      brokenReport.errors.map((error) => [error.path, error.rule]),
      [[`vendorConfig.${field}`, 'type']],
    );
  });
}

test('human output lists "path: message" lines for errors and warnings', async (t) => {
  const request = validRequest('K6', { term: 13, size: 'MVE 2/8' });
  delete request['vnics'];
  const result = await runCli(['check', '-'], { stdin: JSON.stringify(request) });
  t.is(result.code, 1);
  const lines = result.stdout.trimEnd().split('\n');
  t.is(lines[0], 'invalid (kind K6): 2 errors');
  t.true(lines.includes('  term: term must be one of 1, 12, 24, 36, 48, 60 (months)'));
  t.true(lines.includes('  size: size "MVE 2/8" is not supported by kind K6'));
  t.true(lines.includes('warnings:'));
  t.true(lines.some((line) => line.startsWith('  vnics: vnics omitted')));
});

test('--json prints ok, kind, errors and warnings', async (t) => {
  const result = await runCli(['check', '-', '--json'], { stdin: JSON.stringify(validRequest('K9')) });
  t.is(result.code, 0);
  t.deepEqual(JSON.parse(result.stdout), { ok: true, kind: 'K9', errors: [], warnings: [] });
});

test('unusable input exits 2: missing file, not JSON, bad catalog, bad kind map', async (t) => {
  const valid = writeFile('valid.json', validRequest('K9'));
  const missing = await runCli(['check', join(directory, 'nope.json')]);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /cannot read the order request .*nope\.json: ENOENT/);
  const notJson = await runCli(['check', '-'], { stdin: '{"adminPassword": "hunter2' });
  t.is(notJson.code, 2);
  t.regex(notJson.stderr, /not valid JSON/);
  t.false(notJson.stderr.includes('hunter2'));
  const badImages = await runCli(['check', valid, '--images', writeFile('images.json', { data: [] })]);
  t.is(badImages.code, 2);
  t.regex(badImages.stderr, /is not an images response body/);
  const badLocations = await runCli([
    'check',
    valid,
    '--locations',
    writeFile('locations.json', { data: [{ name: 'no id' }] }),
  ]);
  t.is(badLocations.code, 2);
  const badMap = await runCli(['check', valid], { env: { MVE_KIND_MAP: writeFile('map.json', [{ vendor: 'x' }]) } });
  t.is(badMap.code, 2);
  t.regex(badMap.stderr, /kind map .*map\.json is not valid/);
});

test('--images and --locations check against the catalogs as the endpoints return them', async (t) => {
  const images = writeFile('images-body.json', IMAGES_BODY);
  const locations = writeFile('locations-body.json', LOCATIONS_BODY);
  const good = writeFile(
    'good.json',
    validRequest('K9', {
      image: { vendor: 'Fortinet', product: 'FortiGate-VM', version: 'latest' },
      location: { metro: 'Sydney' },
    }),
  );
  const ok = await runCli(['check', good, '--images', images, '--locations', locations, '--json']);
  t.is(ok.code, 0);
  const okReport = JSON.parse(ok.stdout) as JsonReport;
  t.deepEqual(
    okReport.warnings.map((warning) => warning.rule),
    ['location-ambiguous'],
  );
  const bad = writeFile('bad.json', validRequest('K9', { image: { id: 101 }, location: { id: 61 }, size: 'MVE 8/32' }));
  const refused = await runCli(['check', bad, '--images', images, '--locations', locations, '--json']);
  t.is(refused.code, 1);
  t.deepEqual((JSON.parse(refused.stdout) as JsonReport).errors.map((error) => [error.path, error.rule]).sort(), [
    ['location', 'location-not-active'],
    ['size', 'size-not-offered'],
  ]);
  const groupsOnly = writeFile('image-groups.json', IMAGES_BODY.data.mveImages);
  t.is((await runCli(['check', good, '--images', groupsOnly])).code, 0);
  const bareArray = writeFile('locations-array.json', LOCATIONS_BODY.data);
  t.is((await runCli(['check', good, '--locations', bareArray])).code, 0);
});

test('--kind-map and MVE_KIND_MAP add image families', async (t) => {
  const request = writeFile('acme.json', {
    ...validRequest('K5', { image: { vendor: 'Acme', product: 'Firewall', version: 'latest' } }),
    kind: undefined,
  });
  const unknown = await runCli(['check', request, '--json']);
  t.is(unknown.code, 1);
  t.is((JSON.parse(unknown.stdout) as JsonReport).errors[0].rule, 'kind-unknown-image');
  const map = writeFile('acme-map.json', [{ vendor: 'Acme', product: 'Firewall', kinds: ['K5'] }]);
  t.is((await runCli(['check', request, '--kind-map', map])).code, 0);
  t.is((await runCli(['check', request], { env: { MVE_KIND_MAP: map } })).code, 0);
});

test('no output echoes a secret value (canary)', async (t) => {
  const canary = 'CANARY-51b2e0';
  const request = validRequest('K5', {
    vendorConfig: { adminPassword: `${canary}"`, sshPublicKey: `ssh-rsa ${canary}` },
  });
  for (const args of [
    ['check', '-'],
    ['check', '-', '--json'],
  ]) {
    const result = await runCli(args, { stdin: JSON.stringify(request) });
    t.is(result.code, 1);
    t.false(result.stdout.includes(canary));
    t.false(result.stderr.includes(canary));
  }
});
