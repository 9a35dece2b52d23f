/** Choosing the location and image from catalogs, and the request check's catalog rules. */
import test from 'ava';
import { checkOrderRequest, compareVersions, selectImage, selectLocation } from '../../domain/index.js';
import { IMAGES, LOCATIONS } from './helpers/catalogs.js';
import { validRequest } from './helpers/fixtures.js';

test('location by id: found and usable', (t) => {
  t.like(selectLocation(LOCATIONS, { id: 7 }), { ok: true, value: { id: 7 }, warnings: [] });
});

test('location by id: missing, not Active, or without MVE in any zone, each says why', (t) => {
  t.like(selectLocation(LOCATIONS, { id: 5 }), {
    ok: false,
    issues: [{ path: 'location.id', rule: 'location-not-found' }],
  });
  const inactive = selectLocation(LOCATIONS, { id: 61 });
  t.like(inactive, { ok: false, issues: [{ path: 'location', rule: 'location-not-active' }] });
  t.regex(
    !inactive.ok ? inactive.issues[0].message : '',
    /location 61 \(Global Switch Sydney\) is not Active \(status "Deployment"\)/,
  );
  t.like(selectLocation(LOCATIONS, { id: 62 }), { ok: false, issues: [{ rule: 'location-no-mve' }] });
  t.like(selectLocation(LOCATIONS, { id: 90 }), { ok: false, issues: [{ rule: 'location-not-active' }] });
});

test('location by metro: several usable match, the lowest id wins with a warning naming the others', (t) => {
  const result = selectLocation(LOCATIONS, { metro: 'sydney' });
  t.true(result.ok);
  if (!result.ok) return;
  t.is(result.value.id, 3);
  t.is(result.warnings.length, 1);
  t.like(result.warnings[0], { path: 'location', rule: 'location-ambiguous' });
  t.regex(
    result.warnings[0].message,
    /2 usable locations match metro "sydney"; chose 3 \(Equinix SY1\).*7 \(NextDC S1\)/,
  );
});

test('location by several fields: every given field must match', (t) => {
  t.like(selectLocation(LOCATIONS, { name: 'NextDC S1', country: 'australia' }), {
    ok: true,
    value: { id: 7 },
    warnings: [],
  });
  t.like(selectLocation(LOCATIONS, { metro: 'London', market: 'UK', country: 'United Kingdom' }), {
    ok: true,
    value: { id: 80 },
  });
  t.like(selectLocation(LOCATIONS, { metro: 'London', market: 'AU' }), {
    ok: false,
    issues: [{ rule: 'location-not-found' }],
  });
});

test('location by selector: matches that are all unusable are reported with their reasons', (t) => {
  const result = selectLocation(LOCATIONS, { metro: 'Perth' });
  t.like(result, { ok: false, issues: [{ path: 'location', rule: 'location-unavailable' }] });
  t.regex(!result.ok ? result.issues[0].message : '', /location 90 \(Perth One\) is not Active/);
});

test('versions compare by numeric segments', (t) => {
  t.true(compareVersions('7.10.1', '7.9.4') > 0);
  t.true(compareVersions('7.2', '7.2.1') < 0);
  t.true(compareVersions('17.3.1a', '17.3.1') < 0);
  t.true(compareVersions('8.0.0-beta1', '8.0.0') < 0);
  t.is(compareVersions('V1.2', 'v1.2'), 0);
  const sorted = ['1.10', '1.2', '1.9.9', '2.0', '1.2.0'].sort(compareVersions);
  t.deepEqual(sorted, ['1.2', '1.2.0', '1.9.9', '1.10', '2.0']);
});

test('image "latest" is the newest release image, not the newest pre-release', (t) => {
  t.like(selectImage(IMAGES, { vendor: 'fortinet', product: 'FORTIGATE-VM', version: 'latest' }), {
    ok: true,
    value: { id: 102, version: '7.10.1', vendor: 'Fortinet', product: 'FortiGate-VM' },
  });
});

test('image by explicit version and by id', (t) => {
  t.like(selectImage(IMAGES, { vendor: 'Fortinet', product: 'FortiGate-VM', version: '7.2.9' }), {
    ok: true,
    value: { id: 101 },
    warnings: [],
  });
  t.like(selectImage(IMAGES, { id: 201 }), {
    ok: true,
    value: { id: 201, vendor: 'Cisco', product: 'FTDv' },
    warnings: [],
  });
  t.like(selectImage(IMAGES, { id: 104 }), {
    ok: true,
    value: { id: 104 },
    warnings: [{ path: 'image.id', rule: 'image-not-release' }],
  });
  const pre = selectImage(IMAGES, { vendor: 'Fortinet', product: 'FortiGate-VM', version: '8.0.0-beta1' });
  t.like(pre, { ok: true, value: { id: 104 }, warnings: [{ rule: 'image-not-release' }] });
});

test('image selection failures name the field and list what exists', (t) => {
  t.like(selectImage(IMAGES, { id: 999 }), { ok: false, issues: [{ path: 'image.id', rule: 'image-not-found' }] });
  const family = selectImage(IMAGES, { vendor: 'Fortinet', product: 'FortiGate', version: 'latest' });
  t.like(family, { ok: false, issues: [{ path: 'image', rule: 'image-not-found' }] });
  t.regex(
    !family.ok ? family.issues[0].message : '',
    /families: Fortinet \/ FortiGate-VM; Cisco \/ FTDv; Acme \/ Router/,
  );
  const version = selectImage(IMAGES, { vendor: 'Fortinet', product: 'FortiGate-VM', version: '6.0' });
  t.like(version, { ok: false, issues: [{ path: 'image.version', rule: 'image-version-not-found' }] });
  t.regex(!version.ok ? version.issues[0].message : '', /versions: 8\.0\.0-beta1, 7\.10\.1, 7\.9\.4, 7\.2\.9/);
  t.like(selectImage(IMAGES, { vendor: 'Acme', product: 'Router', version: 'latest' }), {
    ok: false,
    issues: [{ rule: 'image-no-release' }],
  });
});

test('the size must be offered for the chosen image; "latest" does not fall back to an older image', (t) => {
  t.like(selectImage(IMAGES, { vendor: 'Fortinet', product: 'FortiGate-VM', version: 'latest' }, 'MVE 12/48'), {
    ok: true,
    value: { id: 102 },
  });
  const refused = selectImage(IMAGES, { vendor: 'Fortinet', product: 'FortiGate-VM', version: 'latest' }, 'MVE 8/32');
  t.like(refused, { ok: false, issues: [{ path: 'size', rule: 'size-not-offered' }] });
  t.regex(
    !refused.ok ? refused.issues[0].message : '',
    /not offered for image 102 \(Fortinet FortiGate-VM 7\.10\.1\); offered: MVE 2\/8, MVE 4\/16, MVE 12\/48/,
  );
});

const catalogs = { images: IMAGES, locations: LOCATIONS };

test('request check with catalogs: valid, with the chosen location and image', (t) => {
  const result = checkOrderRequest(
    validRequest('K9', {
      image: { vendor: 'Fortinet', product: 'FortiGate-VM', version: 'latest' },
      location: { id: 7 },
    }),
    catalogs,
  );
  t.deepEqual(result.errors, []);
  t.is(result.location?.id, 7);
  t.is(result.image?.id, 102);
});

test('request check with catalogs: an image given by id gets its kind from the catalog family', (t) => {
  const result = checkOrderRequest(validRequest('K6', { image: { id: 201 }, location: { id: 7 } }), catalogs);
  t.is(result.kind, 'K6');
  t.deepEqual(result.errors, []);
});

test('request check with catalogs: size not offered, unusable location and unknown image are all reported', (t) => {
  const sizeRefused = checkOrderRequest(
    validRequest('K9', { image: { id: 101 }, location: { id: 7 }, size: 'MVE 8/32' }),
    catalogs,
  );
  t.deepEqual(
    sizeRefused.errors.map((error) => [error.path, error.rule]),
    [['size', 'size-not-offered']],
  );
  const legacy = validRequest('K9', { image: { id: 101 }, location: { id: 7 }, productSize: 'LARGE' });
  delete legacy['size'];
  t.deepEqual(
    checkOrderRequest(legacy, catalogs).errors.map((error) => [error.path, error.rule]),
    [['productSize', 'size-not-offered']],
  );
  const both = checkOrderRequest(validRequest('K9', { image: { id: 999 }, location: { id: 61 } }), catalogs);
  t.deepEqual(both.errors.map((error) => [error.path, error.rule]).sort(), [
    ['image.id', 'image-not-found'],
    ['location', 'location-not-active'],
  ]);
});

test('request check with catalogs: a missing image still lets the fields be checked when they tell the kind', (t) => {
  const result = checkOrderRequest(
    validRequest('K17', { image: { id: 999 }, location: { id: 7 }, vendorConfig: { directorAddress: 'bad host' } }),
    catalogs,
  );
  t.is(result.kind, 'K17');
  t.true(result.errors.some((error) => error.path === 'image.id'));
  t.true(result.errors.some((error) => error.path === 'vendorConfig.directorAddress' && error.rule === 'host'));
});

test('request check with catalogs: an undocumented size the image offers is fine; offline it is a warning', (t) => {
  const request = validRequest('K9', {
    image: { vendor: 'Fortinet', product: 'FortiGate-VM', version: '7.10.1' },
    location: { id: 7 },
    size: 'MVE 12/48',
  });
  const withCatalog = checkOrderRequest(request, catalogs);
  t.deepEqual(withCatalog.errors, []);
  t.false(withCatalog.warnings.some((warning) => warning.rule === 'size-undocumented'));
  const offline = checkOrderRequest(request);
  t.true(offline.ok);
  t.true(offline.warnings.some((warning) => warning.path === 'size' && warning.rule === 'size-undocumented'));
});
