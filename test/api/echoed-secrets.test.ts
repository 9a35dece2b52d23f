/**
 * A provider that quotes back what we sent: the secrets of our request never reach the errors the client makes (and so
 * no lastError, log, record or history built from them), whether quoted whole, escaped in JSON, line by line, or cut
 * short beside the field's name; the values that are not secret stay readable.
 */
import test from 'ava';
import { ApiRejectedError } from '../../infra/ordering-api/index.js';
import { redactEchoes, secretValuesOf } from '../../infra/ordering-api/echoes.js';
import { vendorConfigSchema, type OrderObject } from '../../schemas/index.js';
import { rawApi, simWithClient, validOrder } from './helpers.js';

const PASSWORD = 'Sup3rSecret!pw';
const LICENCE = '-----BEGIN LICENSE-----\nSERIAL-0042-LICENCE-BODY\n-----END LICENSE-----';

const ORDER: OrderObject = {
  locationId: 1,
  productName: 'x',
  productType: 'MVE',
  term: 12,
  vendorConfig: vendorConfigSchema.parse({
    imageId: 1,
    mveLabel: 'MVE 2/8',
    adminPassword: PASSWORD,
    licenseData: LICENCE,
    sshPublicKey: 'ssh-rsa AAAA',
  }),
};

/** The error a client gets from a server answering every validate with `body` (JSON) as a 400. */
async function refusalOf(t: Parameters<typeof rawApi>[0], body: unknown): Promise<ApiRejectedError> {
  const client = await rawApi(t, (res) => {
    res.statusCode = 400;
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  return client.validate([ORDER]).then(
    () => {
      throw new Error('the validate was accepted');
    },
    (error: unknown) => error as ApiRejectedError,
  );
}

function shown(error: ApiRejectedError): string {
  return `${error.message} ${JSON.stringify(error)}`;
}

test('a password quoted whole, in the message and in the data, is redacted; the field is still named', async (t) => {
  const error = await refusalOf(t, {
    message: `vendorConfig.adminPassword: "${PASSWORD}" is too weak`,
    data: [{ path: 'vendorConfig.adminPassword', value: PASSWORD, message: `value ${PASSWORD} rejected` }],
  });
  t.true(error instanceof ApiRejectedError);
  t.false(shown(error).includes(PASSWORD));
  t.regex(error.message, /vendorConfig\.adminPassword: "\[redacted\]" is too weak/);
  t.deepEqual(error.data, [
    { path: 'vendorConfig.adminPassword', value: '[redacted]', message: 'value [redacted] rejected' },
  ]);
});

test('a licence of several lines: escaped in JSON text, or one line of it, is redacted', async (t) => {
  const escaped = JSON.stringify(LICENCE);
  const error = await refusalOf(t, {
    message: `licence ${escaped} expired; the line SERIAL-0042-LICENCE-BODY is not a serial we know`,
  });
  t.false(shown(error).includes('SERIAL-0042'), error.message);
  t.false(shown(error).includes('BEGIN LICENSE'), error.message);
});

test('a value cut short or changed is redacted when quoted beside a secret field; other quoted values stay', async (t) => {
  const error = await refusalOf(t, {
    message: `adminPassword: '${PASSWORD.slice(0, 6)}…' is too weak; mveLabel: "MVE 2/8" is taken`,
  });
  t.false(shown(error).includes(PASSWORD.slice(0, 6)));
  t.is(
    error.message.split(': ').slice(1).join(': '),
    `adminPassword: '[redacted]' is too weak; mveLabel: "MVE 2/8" is taken`,
  );
});

test('a body that is not JSON is redacted before it is cut to 200 characters', async (t) => {
  const error = await refusalOf(t, `${'x'.repeat(195)} ${PASSWORD} and more`);
  t.false(shown(error).includes(PASSWORD.slice(0, 4)), error.message);
});

test('the secrets looked for: each secret field of every order, in the forms it may be echoed in', (t) => {
  const secrets = secretValuesOf({ networkDesign: [ORDER], discountCodes: [] });
  t.true(secrets.includes(PASSWORD));
  t.true(secrets.includes(LICENCE));
  t.true(secrets.includes(JSON.stringify(LICENCE).slice(1, -1)));
  t.true(secrets.includes('SERIAL-0042-LICENCE-BODY'));
  t.false(secrets.includes('MVE 2/8'), 'the label is not secret');
  t.is(redactEchoes('nothing to hide: "MVE 2/8"', secrets), 'nothing to hide: "MVE 2/8"');
  t.is(redactEchoes("the password doesn't match 'abc'", []), "the password doesn't match '[redacted]'");
});

test('the simulator quoting the token it was sent (the echo fault): the error does not carry it', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const { order } = await validOrder(client);
  const token = order.vendorConfig['token'] as string;
  sim.injectFault({ kind: 'echo', endpoint: 'validate', field: 'token' });
  const error = await t.throwsAsync(client.validate([order]), { instanceOf: ApiRejectedError });
  t.false(shown(error).includes(token), error.message);
  t.regex(error.message, /Validation failed: vendorConfig\.token: the value "\[redacted\]" is not accepted/);
});
