/**
 * Every vendorConfig rule of every appliance kind (spec 2.5), both ways, through the full request check:
 * each accepted case keeps the request valid; each refused case fails with the named path and rule.
 */
import test from 'ava';
import { APPLIANCE_KINDS, checkOrderRequest, KIND_IDS, type KindId } from '../../domain/index.js';
import {
  BCRYPT,
  SHA1_HEX,
  SHA256_CRYPT,
  SHA512_CRYPT,
  SHA512_HEX,
  validRequest,
  validVendorConfig,
} from './helpers/fixtures.js';
import { openSshKey, rfc4716Key } from './helpers/ssh-keys.js';

const REMOVE = Symbol('remove');
type Change = Record<string, unknown>;

interface Case {
  kind: KindId;
  change: Change;
  /** Refused: the path (under vendorConfig) and rule expected. Absent: accepted. */
  refused?: { field: string; rule: string };
}

function withChange(kind: KindId, change: Change): Record<string, unknown> {
  const config = { ...validVendorConfig(kind) };
  for (const [name, value] of Object.entries(change)) {
    if (value === REMOVE) delete config[name];
    else config[name] = value;
  }
  return validRequest(kind, { vendorConfig: config });
}

const accept = (kind: KindId, change: Change): Case => ({ kind, change });
const refuse = (kind: KindId, change: Change, field: string, rule: string): Case => ({
  kind,
  change,
  refused: { field, rule },
});

const rsa2048 = () => openSshKey('rsa2048');
const rsa3072 = () => openSshKey('rsa3072');
const rsa4096 = () => openSshKey('rsa4096');
const ed25519 = () => openSshKey('ed25519');
const ecdsa = () => openSshKey('ecdsa');
const base64 = (text: string) => Buffer.from(text).toString('base64');

const cases: Case[] = [
  // K1: RSA 2048 in OpenSSH or RFC 4716.
  accept('K1', { sshPublicKey: rsa2048() }),
  accept('K1', { sshPublicKey: rfc4716Key('rsa2048') }),
  refuse('K1', { sshPublicKey: rsa3072() }, 'sshPublicKey', 'ssh-key-rsa-bits'),
  refuse('K1', { sshPublicKey: rfc4716Key('rsa4096') }, 'sshPublicKey', 'ssh-key-rsa-bits'),
  refuse('K1', { sshPublicKey: ed25519() }, 'sshPublicKey', 'ssh-key-type'),
  refuse('K1', { sshPublicKey: 'ssh-rsa not-a-key' }, 'sshPublicKey', 'ssh-key-format'),
  refuse('K1', { sshPublicKey: 2048 }, 'sshPublicKey', 'type'),
  refuse('K1', { sshPublicKey: REMOVE }, 'sshPublicKey', 'required'),
  // K2
  accept('K2', { orchestratorAddress: '192.0.2.10' }),
  accept('K2', { orchestratorAddress: '2001:db8::10' }),
  refuse('K2', { orchestratorAddress: 'localhost' }, 'orchestratorAddress', 'host'),
  refuse('K2', { orchestratorAddress: 'vco example net' }, 'orchestratorAddress', 'host'),
  refuse('K2', { orchestratorAddress: '300.1.2.3' }, 'orchestratorAddress', 'host'),
  refuse('K2', { orchestratorAddress: REMOVE }, 'orchestratorAddress', 'required'),
  refuse('K2', { orchestratorActivationCode: '' }, 'orchestratorActivationCode', 'length'),
  refuse('K2', { orchestratorActivationCode: '   ' }, 'orchestratorActivationCode', 'blank'),
  refuse('K2', { orchestratorActivationCode: REMOVE }, 'orchestratorActivationCode', 'required'),
  refuse('K2', { sshPublicKey: rsa4096() }, 'sshPublicKey', 'ssh-key-rsa-bits'),
  refuse('K2', { sshPublicKey: REMOVE }, 'sshPublicKey', 'required'),
  // K3
  refuse('K3', { accountName: REMOVE }, 'accountName', 'required'),
  refuse('K3', { accountKey: REMOVE }, 'accountKey', 'required'),
  refuse('K3', { accountKey: 'key\nwith newline' }, 'accountKey', 'forbidden-character'),
  // K4
  accept('K4', { cloudInit: base64('#cloud-config\n' + 'x'.repeat(200)).replace(/.{76}/g, '$&\n') }),
  refuse('K4', { cloudInit: '#cloud-config' }, 'cloudInit', 'base64'),
  refuse('K4', { cloudInit: 'abc' }, 'cloudInit', 'base64'),
  refuse('K4', { cloudInit: '' }, 'cloudInit', 'base64'),
  refuse('K4', { cloudInit: REMOVE }, 'cloudInit', 'required'),
  // K5
  accept('K5', { adminPassword: 'a'.repeat(9) }),
  accept('K5', { adminPassword: 'é'.repeat(100) }),
  refuse('K5', { adminPassword: 'a'.repeat(8) }, 'adminPassword', 'length'),
  refuse('K5', { adminPassword: 'a'.repeat(101) }, 'adminPassword', 'length'),
  refuse('K5', { adminPassword: 'pass"word1' }, 'adminPassword', 'forbidden-character'),
  refuse('K5', { adminPassword: 'pass\rword1' }, 'adminPassword', 'forbidden-character'),
  refuse('K5', { adminPassword: 'pass\nword1' }, 'adminPassword', 'forbidden-character'),
  refuse('K5', { adminPassword: REMOVE }, 'adminPassword', 'required'),
  refuse('K5', { sshPublicKey: ed25519() }, 'sshPublicKey', 'ssh-key-type'),
  refuse('K5', { sshPublicKey: REMOVE }, 'sshPublicKey', 'required'),
  // K6: central management fields only and always with manageLocally=false.
  accept('K6', {
    manageLocally: false,
    fmcIpAddress: 'fmc.example.net',
    fmcRegistrationKey: 'A-z-0-9'.padEnd(37, 'x'),
  }),
  accept('K6', { manageLocally: false, fmcIpAddress: '2001:db8::1', fmcRegistrationKey: 'k', fmcNatId: 'nat-01' }),
  refuse('K6', { manageLocally: false }, 'fmcIpAddress', 'required-when'),
  refuse('K6', { manageLocally: false }, 'fmcRegistrationKey', 'required-when'),
  refuse('K6', { manageLocally: true, fmcNatId: 'nat-01' }, 'fmcNatId', 'only-when'),
  refuse('K6', { manageLocally: true, fmcIpAddress: '10.0.0.1' }, 'fmcIpAddress', 'only-when'),
  refuse('K6', { manageLocally: 'false' }, 'manageLocally', 'type'),
  refuse('K6', { manageLocally: REMOVE }, 'manageLocally', 'required'),
  refuse('K6', { manageLocally: false, fmcIpAddress: 'fmc', fmcRegistrationKey: 'k' }, 'fmcIpAddress', 'host'),
  refuse(
    'K6',
    { manageLocally: false, fmcIpAddress: '10.0.0.1', fmcRegistrationKey: 'x'.repeat(38) },
    'fmcRegistrationKey',
    'format',
  ),
  refuse(
    'K6',
    { manageLocally: false, fmcIpAddress: '10.0.0.1', fmcRegistrationKey: 'under_score' },
    'fmcRegistrationKey',
    'format',
  ),
  refuse(
    'K6',
    { manageLocally: false, fmcIpAddress: '10.0.0.1', fmcRegistrationKey: 'k', fmcNatId: '' },
    'fmcNatId',
    'format',
  ),
  refuse('K6', { adminPassword: 'short' }, 'adminPassword', 'length'),
  // K7
  refuse('K7', { token: REMOVE }, 'token', 'required'),
  refuse('K7', { token: '' }, 'token', 'length'),
  // K8
  accept('K8', { adminSshPublicKey: rsa2048() }),
  accept('K8', { adminSshPublicKey: rfc4716Key('ed25519') }),
  accept('K8', { adminPasswordHash: '$6$rounds=5000$saltsalt$' + 'A'.repeat(86) }),
  refuse('K8', { adminSshPublicKey: rsa4096() }, 'adminSshPublicKey', 'ssh-key-rsa-bits'),
  refuse('K8', { adminSshPublicKey: ecdsa() }, 'adminSshPublicKey', 'ssh-key-type'),
  refuse('K8', { adminPasswordHash: SHA256_CRYPT }, 'adminPasswordHash', 'sha512crypt'),
  refuse('K8', { adminPasswordHash: SHA512_HEX }, 'adminPasswordHash', 'sha512crypt'),
  refuse('K8', { adminPasswordHash: SHA512_CRYPT.slice(0, -1) }, 'adminPasswordHash', 'sha512crypt'),
  refuse('K8', { adminPasswordHash: '$6$rounds=10$saltsalt$' + 'A'.repeat(86) }, 'adminPasswordHash', 'sha512crypt'),
  refuse('K8', { adminPasswordHash: REMOVE }, 'adminPasswordHash', 'required'),
  // K9
  accept('K9', { licenseData: base64('LICENSE FILE') }),
  refuse('K9', { licenseData: 'not base64!' }, 'licenseData', 'base64'),
  refuse('K9', { sshPublicKey: rsa3072() }, 'sshPublicKey', 'ssh-key-rsa-bits'),
  // K10
  refuse('K10', { registrationCode: REMOVE }, 'registrationCode', 'required'),
  refuse('K10', { registrationCode: 'code\twith tab' }, 'registrationCode', 'forbidden-character'),
  // K11: optional onboarding fields, each with its own format.
  accept('K11', {
    onboardDeviceId: '3f1c2a9e-7b4d-4e8f-9a6b-2c5d8e1f0a3b',
    onboardPasswordHash: SHA512_CRYPT,
    onboardSecret: 'f'.repeat(128),
    onboardSshPublicKey: rsa3072(),
  }),
  accept('K11', { onboardPasswordHash: SHA512_HEX }),
  refuse('K11', { adminPasswordHash: SHA512_HEX }, 'adminPasswordHash', 'sha512crypt'),
  refuse('K11', { adminSshPublicKey: ed25519() }, 'adminSshPublicKey', 'ssh-key-type'),
  refuse('K11', { onboardDeviceId: '3f1c2a9e-7b4d-1e8f-9a6b-2c5d8e1f0a3b' }, 'onboardDeviceId', 'uuid-v4'),
  refuse('K11', { onboardDeviceId: 'not-a-uuid' }, 'onboardDeviceId', 'uuid-v4'),
  refuse('K11', { onboardPasswordHash: SHA256_CRYPT }, 'onboardPasswordHash', 'sha512-hash'),
  refuse('K11', { onboardSecret: 'F'.repeat(128) }, 'onboardSecret', 'hex'),
  refuse('K11', { onboardSecret: 'f'.repeat(127) }, 'onboardSecret', 'hex'),
  refuse('K11', { onboardSshPublicKey: rsa2048() }, 'onboardSshPublicKey', 'ssh-key-rsa-bits'),
  refuse('K11', { adminPasswordHash: REMOVE }, 'adminPasswordHash', 'required'),
  refuse('K11', { adminSshPublicKey: REMOVE }, 'adminSshPublicKey', 'required'),
  // K12: activation token and URI come together.
  accept('K12', { adminPasswordHash: SHA512_CRYPT }),
  accept('K12', { adminPasswordHash: SHA512_HEX.toUpperCase() }),
  accept('K12', { activationToken: 'A1'.repeat(32), activationUri: 'https://activate.example.net/x' }),
  refuse('K12', { activationToken: 'a1'.repeat(32) }, 'activationUri', 'requires-together'),
  refuse('K12', { activationUri: 'https://activate.example.net/x' }, 'activationToken', 'requires-together'),
  refuse('K12', { activationToken: 'a'.repeat(63), activationUri: 'https://a.example.net' }, 'activationToken', 'hex'),
  refuse('K12', { activationToken: 'a'.repeat(64), activationUri: 'not a uri' }, 'activationUri', 'uri'),
  refuse('K12', { adminPasswordHash: 'ab'.repeat(63) }, 'adminPasswordHash', 'sha512-hash'),
  refuse('K12', { adminPasswordHash: BCRYPT }, 'adminPasswordHash', 'sha512-hash'),
  refuse('K12', { adminSshPublicKey: rsa4096() }, 'adminSshPublicKey', 'ssh-key-rsa-bits'),
  // K13
  accept('K13', { adminSshPublicKey: rsa4096() }),
  accept('K13', { adminSshPublicKey: ed25519() }),
  accept('K13', { adminSshPublicKey: rfc4716Key('rsa2048') }),
  refuse('K13', { adminSshPublicKey: rsa3072() }, 'adminSshPublicKey', 'ssh-key-rsa-bits'),
  refuse('K13', { adminSshPublicKey: ecdsa() }, 'adminSshPublicKey', 'ssh-key-type'),
  refuse('K13', { adminPasswordHash: BCRYPT.replace('$2y$', '$2a$') }, 'adminPasswordHash', 'bcrypt'),
  refuse('K13', { adminPasswordHash: BCRYPT.slice(0, -1) }, 'adminPasswordHash', 'bcrypt'),
  refuse('K13', { adminPasswordHash: BCRYPT.replace('$12$', '$03$') }, 'adminPasswordHash', 'bcrypt'),
  refuse('K13', { adminPasswordHash: SHA512_CRYPT }, 'adminPasswordHash', 'bcrypt'),
  // K14
  accept('K14', { adminPasswordHash: SHA1_HEX.toUpperCase() }),
  refuse('K14', { adminPasswordHash: SHA1_HEX + '0' }, 'adminPasswordHash', 'hex'),
  refuse('K14', { adminPasswordHash: 'g'.repeat(40) }, 'adminPasswordHash', 'hex'),
  refuse('K14', { licenseData: 'ABCD1234EFGH567' }, 'licenseData', 'format'),
  refuse('K14', { licenseData: 'ABCD-234EFGH5678' }, 'licenseData', 'format'),
  refuse('K14', { licenseData: REMOVE }, 'licenseData', 'required'),
  // K15 (both models share the fields)
  accept('K15A', { ionKey: 'ABCDEF0123-ABCDEF01-ABCD-ABCD-ABCD-ABCDEF012345' }),
  refuse('K15A', { ionKey: '0123456789-abcdef01-2345-6789-abcdef0123456789' }, 'ionKey', 'format'),
  refuse('K15B', { ionKey: 'g123456789-abcdef01-2345-6789-abcd-ef0123456789' }, 'ionKey', 'format'),
  refuse('K15A', { secretKey: 'a'.repeat(39) }, 'secretKey', 'hex'),
  refuse('K15B', { secretKey: REMOVE }, 'secretKey', 'required'),
  // K16
  accept('K16', { licenseData: '01234567' }),
  accept('K16', { licenseData: '000000009' }),
  refuse('K16', { licenseData: '1234567' }, 'licenseData', 'format'),
  refuse('K16', { licenseData: '1234567890' }, 'licenseData', 'format'),
  refuse('K16', { licenseData: 'abcdefgh' }, 'licenseData', 'format'),
  refuse('K16', { adminPasswordHash: SHA512_CRYPT }, 'adminPasswordHash', 'sha256crypt'),
  refuse('K16', { sshPublicKey: ed25519() }, 'sshPublicKey', 'ssh-key-type'),
  // K17
  accept('K17', { directorAddress: '198.51.100.7', localAuth: 'x'.repeat(100), serialNumber: 'S'.repeat(100) }),
  refuse('K17', { directorAddress: '2001:db8::7' }, 'directorAddress', 'host'),
  refuse('K17', { controllerAddress: 'controller' }, 'controllerAddress', 'host'),
  refuse('K17', { localAuth: 'x'.repeat(101) }, 'localAuth', 'length'),
  refuse('K17', { remoteAuth: 'has space' }, 'remoteAuth', 'identifier-or-email'),
  refuse('K17', { serialNumber: 'S'.repeat(101) }, 'serialNumber', 'length'),
  refuse('K17', { serialNumber: REMOVE }, 'serialNumber', 'required'),
  // Fields no kind has, and the fields the engine fills in.
  refuse('K9', { colour: 'blue' }, 'colour', 'unknown-field'),
  refuse('K9', { vendor: 'Fortinet' }, 'vendor', 'unknown-field'),
  refuse('K9', { imageId: 42 }, 'imageId', 'engine-field'),
  refuse('K9', { mveLabel: 'MVE 4/16' }, 'mveLabel', 'engine-field'),
];

for (const [index, testCase] of cases.entries()) {
  const what = Object.entries(testCase.change)
    .map(
      ([name, value]) =>
        `${name}=${value === REMOVE ? '(removed)' : typeof value === 'string' ? value.slice(0, 16) : String(value)}`,
    )
    .join(', ');
  const title = `${testCase.kind} #${index} ${testCase.refused ? `refuses (${testCase.refused.rule})` : 'accepts'}: ${what}`;
  test(title, (t) => {
    const result = checkOrderRequest(withChange(testCase.kind, testCase.change));
    t.is(result.kind, testCase.kind);
    if (!testCase.refused) {
      t.deepEqual(result.errors, []);
      t.true(result.ok);
      return;
    }
    t.false(result.ok);
    const path = `vendorConfig.${testCase.refused.field}`;
    t.true(
      result.errors.some((error) => error.path === path && error.rule === testCase.refused!.rule),
      `expected ${path} ${testCase.refused.rule}, got ${JSON.stringify(result.errors)}`,
    );
  });
}

test('the table refuses at least one value of every field of every kind', (t) => {
  // Keeps the table honest as kinds change. K15's models share their fields, so either model covers both.
  const family = (kind: KindId) => kind.replace(/^K15[AB]$/, 'K15');
  const covered = new Set(
    cases.filter((entry) => entry.refused).map((entry) => `${family(entry.kind)}.${entry.refused!.field}`),
  );
  for (const kind of KIND_IDS) {
    for (const field of APPLIANCE_KINDS[kind].fields) {
      t.true(covered.has(`${family(kind)}.${field.name}`), `no refused case for ${kind}.${field.name}`);
    }
  }
});
