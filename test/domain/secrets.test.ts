/** Secret vendorConfig fields: which they are, redaction, and that no message ever echoes a value. */
import test from 'ava';
import {
  APPLIANCE_KINDS,
  buildOrder,
  checkOrderObject,
  checkOrderRequest,
  isSecretField,
  KIND_IDS,
  REDACTED,
  redactOrderRequest,
  redactVendorConfig,
} from '../../domain/index.js';
import { orderRequestSchema } from '../../schemas/index.js';
import { FAMILY, validRequest, validVendorConfig } from './helpers/fixtures.js';

const CANARY = 'CANARY-7f3a9c';
/** Breaks every format at once (quote, line break, stray characters) while carrying the canary. */
const POISON = `${CANARY}"\n\u0001 !$%`;

test('credentials are secret; addresses and identifiers are not; unknown credential-like names are', (t) => {
  for (const name of [
    'adminPassword',
    'adminPasswordHash',
    'sshPublicKey',
    'accountKey',
    'token',
    'cloudInit',
    'licenseData',
    'ionKey',
    'secretKey',
    'fmcRegistrationKey',
    'activationToken',
    'onboardSecret',
    'registrationCode',
    'orchestratorActivationCode',
  ]) {
    t.true(isSecretField(name), name);
  }
  for (const name of [
    'imageId',
    'mveLabel',
    'productSize',
    'manageLocally',
    'fmcIpAddress',
    'orchestratorAddress',
    'accountName',
    'directorAddress',
    'serialNumber',
    'onboardDeviceId',
  ]) {
    t.false(isSecretField(name), name);
  }
  t.true(isSecretField('apiPassword'));
  t.true(isSecretField('bootstrapToken'));
  t.false(isSecretField('hostname'));
});

test('every field the kinds table marks secret is secret by name', (t) => {
  for (const kind of KIND_IDS)
    for (const field of APPLIANCE_KINDS[kind].fields)
      if (field.secret) t.true(isSecretField(field.name), `${kind}.${field.name}`);
});

test('redactVendorConfig replaces secret and unknown values, keeps the rest, and does not touch its input', (t) => {
  const config = {
    imageId: 7,
    mveLabel: 'MVE 4/16',
    adminPassword: 'hunter2hunter2',
    manageLocally: false,
    fmcIpAddress: '10.0.0.1',
    surprise: 'x',
  };
  t.deepEqual(redactVendorConfig(config), {
    imageId: 7,
    mveLabel: 'MVE 4/16',
    adminPassword: REDACTED,
    manageLocally: false,
    fmcIpAddress: '10.0.0.1',
    surprise: REDACTED,
  });
  t.is(config.adminPassword, 'hunter2hunter2');
});

test('redactOrderRequest redacts a request, an order, a validate body and a buy envelope', (t) => {
  const request = orderRequestSchema.parse(
    validRequest('K9', {
      vendorConfig: { sshPublicKey: validVendorConfig('K9')['sshPublicKey'], licenseData: 'TElDRU5TRQ==' },
    }),
  );
  const built = buildOrder(request, { id: 1 }, { id: 2, ...FAMILY.K9! });
  for (const document of [request, built.order, built.validateBody, built.buyEnvelope]) {
    const text = JSON.stringify(redactOrderRequest(document));
    t.false(text.includes('TElDRU5TRQ=='));
    t.false(text.includes('ssh-rsa'));
    t.true(text.includes(REDACTED));
  }
  t.is(redactOrderRequest(request).ticketId, request.ticketId);
  t.is(built.order.vendorConfig['licenseData'], 'TElDRU5TRQ==');
});

for (const kind of KIND_IDS) {
  test(`${kind}: no error or warning echoes any vendorConfig value, broken or missing-partner`, (t) => {
    for (const field of APPLIANCE_KINDS[kind].fields) {
      const vendorConfig = { ...validVendorConfig(kind), [field.name]: POISON };
      const result = checkOrderRequest(validRequest(kind, { vendorConfig }));
      t.false(result.ok, `${kind}.${field.name} accepted a poisoned value`);
      t.false(
        JSON.stringify([result.errors, result.warnings]).includes(CANARY),
        `${kind}.${field.name} echoed its value`,
      );
      const order = {
        locationId: 1,
        productName: 'x',
        productType: 'MVE',
        term: 1,
        vendorConfig: { imageId: 1, mveLabel: 'MVE 8/32', ...vendorConfig },
      };
      const image = FAMILY[kind] ?? { vendor: 'Acme', product: 'Firewall' };
      const server = checkOrderObject(order, image, FAMILY[kind] ? {} : { kindMap: [{ ...image, kinds: [kind] }] });
      t.false(JSON.stringify(server.errors).includes(CANARY), `${kind}.${field.name} echoed its value server-side`);
    }
  });
}

test('the build error does not echo secret values either', (t) => {
  const request = orderRequestSchema.parse(
    validRequest('K5', { vendorConfig: { adminPassword: POISON, sshPublicKey: POISON } }),
  );
  const error = t.throws(() =>
    buildOrder(
      request,
      { id: 1 },
      { id: 2, vendor: 'Acme', product: 'Firewall' },
      { kindMap: [{ vendor: 'Acme', product: 'Firewall', kinds: ['K5'] }] },
    ),
  );
  t.false(error.message.includes(CANARY));
});
