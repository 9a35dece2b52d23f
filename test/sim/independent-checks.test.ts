/**
 * The simulator checks orders by its own reading of the spec, not with the engine's domain code. So a
 * rule the domain gets wrong lets a bad order out of the engine, and the simulator, the API's stand-in
 * in every end-to-end test, still refuses it. These tests break a domain rule on purpose (in this test
 * process, where the simulator runs too) and show the order that the broken rule passes refused over real
 * HTTP, with the spec's error: 400, `{message, data: [{path, rule, message}], trace_id}`.
 */
import test, { type ExecutionContext } from 'ava';
import { APPLIANCE_KINDS, checkOrderObject, type FieldSpec, type KindId } from '../../domain/index.js';
import { ApiRejectedError } from '../../infra/ordering-api/index.js';
import { SIM_KIND_MAP, startSimulator, type Simulator } from '../../tooling/sim/index.js';
import type { OrderObject } from '../../schemas/index.js';
import { simWithClient } from '../api/helpers.js';
import {
  catalogOf,
  examples,
  opensshRsaKey,
  orderFor,
  sessionOf,
  type Answer,
  type Catalog,
  type OrderJson,
  type Session,
} from './helpers.js';

async function started(t: ExecutionContext): Promise<{ sim: Simulator; session: Session; catalog: Catalog }> {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const session = await sessionOf(sim);
  return { sim, session, catalog: await catalogOf(session) };
}

function exampleOf(kind: string) {
  const found = examples().find((example) => example.kind === kind);
  if (!found) throw new Error(`no example of kind ${kind}`);
  return found;
}

/** The image facts the domain's check takes, for the image an order names. */
function imageOf(catalog: Catalog, order: OrderJson) {
  const { imageId } = order.vendorConfig;
  const group = catalog.imageGroups.find((candidate) => candidate.images.some((image) => image.id === imageId))!;
  return {
    vendor: group.vendor,
    product: group.product,
    availableSizes: group.images.find((image) => image.id === imageId)!.availableSizes,
  };
}

/** Changes one field of the domain's kinds table for the rest of this test, as a bug in it would. */
function breakDomainField(t: ExecutionContext, kind: KindId, name: string, broken: Partial<FieldSpec>): void {
  const field = APPLIANCE_KINDS[kind].fields.find((candidate) => candidate.name === name)!;
  const intact = { ...field };
  Object.assign(field, broken);
  t.teardown(() => void Object.assign(field, intact));
}

function issuesOf(answer: Answer): Array<{ path: string; rule: string; message: string }> {
  return answer.body['data'] as Array<{ path: string; rule: string; message: string }>;
}

test('every example of examples/ (one per appliance kind) is accepted by the simulator, priced', async (t) => {
  const { session, catalog } = await started(t);
  const all = examples();
  t.is(all.length, 18, 'K1-K17 with K15 as two models');
  for (const example of all) {
    const answer = await session.validate([orderFor(example, catalog)]);
    t.is(answer.status, 200, `${example.file}: ${JSON.stringify(answer.body)}`);
    t.is(answer.body['message'], 'Validation passed', example.file);
    const [quote] = answer.body['data'] as Array<{ price: { monthlyRate: number; currency: string } }>;
    t.true(quote.price.monthlyRate > 0, example.file);
  }
});

test('a valid order is bought, and the deprecated productSize is accepted in place of mveLabel', async (t) => {
  const { sim, session, catalog } = await started(t);
  const order = orderFor(exampleOf('K9'), catalog);
  const bought = await session.buy({ networkDesign: [order], discountCodes: [] });
  t.is(bought.status, 200, JSON.stringify(bought.body));
  t.like((bought.body['data'] as unknown[])[0], { provisioningStatus: 'DEPLOYABLE', contractTermMonths: 12 });
  t.is(sim.state().products.length, 1);

  const legacy = { ...order.vendorConfig };
  delete legacy.mveLabel;
  const answer = await session.validate([{ ...order, vendorConfig: { ...legacy, productSize: 'MEDIUM' } }]);
  t.is(answer.status, 200, JSON.stringify(answer.body));
});

test.serial(
  'a broken domain rule on key sizes lets an RSA 1024-bit key through the engine; the simulator refuses it',
  async (t) => {
    const engine = await simWithClient();
    const { sim, client } = engine;
    t.teardown(() => engine.close());
    const catalog = await catalogOf(await sessionOf(sim));
    const example = exampleOf('K1');
    const order = orderFor(
      { ...example, request: { ...example.request, vendorConfig: { sshPublicKey: opensshRsaKey(1024) } } },
      catalog,
    );
    const image = imageOf(catalog, order);

    const intact = checkOrderObject(order, image, { kindMap: SIM_KIND_MAP });
    t.true(
      intact.errors.some((error) => error.path === 'vendorConfig.sshPublicKey'),
      'the intact domain refuses the key',
    );
    breakDomainField(t, 'K1', 'sshPublicKey', { format: { type: 'sshKey', rsaBits: [1024, 2048], ed25519: false } });
    t.deepEqual(
      checkOrderObject(order, image, { kindMap: SIM_KIND_MAP }).errors,
      [],
      'the broken domain lets it through',
    );

    // Sent as the engine sends it: through its API client, over HTTP.
    const refused = await t.throwsAsync(client.validate([order as OrderObject]), { instanceOf: ApiRejectedError });
    t.is(refused.status, 400);
    const issues = refused.data as Array<{ path: string; rule: string; message: string }>;
    t.like(
      issues.find((found) => found.path === 'vendorConfig.sshPublicKey'),
      { rule: 'ssh-key', message: 'sshPublicKey must be an RSA 2048-bit public key, not RSA 1024-bit' },
    );
    const notBought = await t.throwsAsync(client.buy({ networkDesign: [order as OrderObject], discountCodes: [] }), {
      instanceOf: ApiRejectedError,
    });
    t.true(
      (notBought.data as Array<{ path: string }>).some(
        (found) => found.path === 'networkDesign.0.vendorConfig.sshPublicKey',
      ),
    );
    t.deepEqual(sim.state().products, []);
  },
);

test.serial(
  'a broken domain rule on a required field lets K6 out without its registration key; the simulator refuses it',
  async (t) => {
    const engine = await simWithClient();
    const { sim, client } = engine;
    t.teardown(() => engine.close());
    const catalog = await catalogOf(await sessionOf(sim));
    const order = orderFor(exampleOf('K6'), catalog);
    delete order.vendorConfig.fmcRegistrationKey;
    const image = imageOf(catalog, order);

    const intact = checkOrderObject(order, image, { kindMap: SIM_KIND_MAP });
    t.true(
      intact.errors.some((error) => error.path === 'vendorConfig.fmcRegistrationKey'),
      'the intact domain refuses the order',
    );
    breakDomainField(t, 'K6', 'fmcRegistrationKey', { presence: 'optional' });
    t.deepEqual(
      checkOrderObject(order, image, { kindMap: SIM_KIND_MAP }).errors,
      [],
      'the broken domain lets it through',
    );

    const refused = await t.throwsAsync(client.validate([order as OrderObject]), { instanceOf: ApiRejectedError });
    t.is(refused.status, 400);
    t.regex(refused.apiMessage ?? '', /^Validation failed: vendorConfig\.fmcRegistrationKey: /);
    t.deepEqual(refused.data, [
      {
        path: 'vendorConfig.fmcRegistrationKey',
        rule: 'required-when',
        message: 'fmcRegistrationKey is required when manageLocally is false',
      },
    ]);
    t.regex(refused.traceId ?? '', /^[0-9a-f-]{36}$/);
  },
);

/** Orders that break one rule of spec 2.3-2.7 each, sent to validate as they are (no engine in between). */
const REFUSED: Array<{
  title: string;
  kind: string;
  change(order: OrderJson): void;
  path: string;
  rule: string;
  secret?: string;
}> = [
  {
    title: 'K5 adminPassword with a double quote',
    kind: 'K5',
    change: (o) => void (o.vendorConfig.adminPassword = 'has"quote-inside'),
    path: 'vendorConfig.adminPassword',
    rule: 'characters',
    secret: 'has"quote-inside',
  },
  {
    title: 'K5 adminPassword of 8 characters',
    kind: 'K5',
    change: (o) => void (o.vendorConfig.adminPassword = 'eight-ch'),
    path: 'vendorConfig.adminPassword',
    rule: 'length',
    secret: 'eight-ch',
  },
  {
    title: 'K2 with 2 vNICs (maximum 1)',
    kind: 'K2',
    change: (o) => void (o.vnics = [{}, {}]),
    path: 'vnics',
    rule: 'vnics-max',
  },
  {
    title: 'K7 with 3 vNICs (exactly 2)',
    kind: 'K7',
    change: (o) => void (o.vnics = [{}, {}, {}]),
    path: 'vnics',
    rule: 'vnics-max',
  },
  {
    title: 'K10 with 2 vNICs (minimum 3)',
    kind: 'K10',
    change: (o) => void (o.vnics = [{}, {}]),
    path: 'vnics',
    rule: 'vnics-min',
  },
  {
    title: '6 vNICs',
    kind: 'K9',
    change: (o) => void (o.vnics = [{}, {}, {}, {}, {}, {}]),
    path: 'vnics',
    rule: 'vnics-count',
  },
  {
    title: 'a vNIC field beyond description',
    kind: 'K9',
    change: (o) => void (o.vnics = [{ description: 'wan', name: 'eth0' }]),
    path: 'vnics.0.name',
    rule: 'unknown-field',
  },
  {
    title: 'K13 bcrypt hash of the $2a$ variant',
    kind: 'K13',
    change: (o) =>
      void (o.vendorConfig.adminPasswordHash = (o.vendorConfig.adminPasswordHash as string).replace('$2y$', '$2a$')),
    path: 'vendorConfig.adminPasswordHash',
    rule: 'password-hash',
  },
  {
    title: 'K16 sha512crypt where sha256crypt is asked',
    kind: 'K16',
    change: (o) => void (o.vendorConfig.adminPasswordHash = exampleOf('K8').request.vendorConfig.adminPasswordHash),
    path: 'vendorConfig.adminPasswordHash',
    rule: 'password-hash',
  },
  {
    title: 'K11 onboardSecret in upper case',
    kind: 'K11',
    change: (o) =>
      void (o.vendorConfig.onboardSecret = (o.vendorConfig.onboardSecret as string).toUpperCase().replace(/9/g, 'A')),
    path: 'vendorConfig.onboardSecret',
    rule: 'hex',
  },
  {
    title: 'K11 onboardSshPublicKey of RSA 2048 bits (3072 asked)',
    kind: 'K11',
    change: (o) => void (o.vendorConfig.onboardSshPublicKey = o.vendorConfig.adminSshPublicKey),
    path: 'vendorConfig.onboardSshPublicKey',
    rule: 'ssh-key',
  },
  {
    title: 'K11 onboardDeviceId a UUID of version 1',
    kind: 'K11',
    change: (o) => void (o.vendorConfig.onboardDeviceId = '3f1c2a9e-7b4d-1e8f-9a6b-2c5d8e1f0a3b'),
    path: 'vendorConfig.onboardDeviceId',
    rule: 'uuid',
  },
  {
    title: 'K12 activationToken without activationUri',
    kind: 'K12',
    change: (o) => void delete o.vendorConfig.activationUri,
    path: 'vendorConfig.activationUri',
    rule: 'required-with',
  },
  {
    title: 'K17 directorAddress an IPv6 address (IPv4 or FQDN asked)',
    kind: 'K17',
    change: (o) => void (o.vendorConfig.directorAddress = '2001:db8::10'),
    path: 'vendorConfig.directorAddress',
    rule: 'address',
  },
  {
    title: 'K6 fmcNatId while managed locally',
    kind: 'K6',
    change: (o) =>
      void Object.assign(o.vendorConfig, {
        manageLocally: true,
        fmcIpAddress: undefined,
        fmcRegistrationKey: undefined,
      }),
    path: 'vendorConfig.fmcNatId',
    rule: 'not-applicable',
  },
  {
    title: 'K6 fmcRegistrationKey with an underscore',
    kind: 'K6',
    change: (o) => void (o.vendorConfig.fmcRegistrationKey = 'reg_key'),
    path: 'vendorConfig.fmcRegistrationKey',
    rule: 'format',
  },
  {
    title: 'K14 licenseData of 15 characters',
    kind: 'K14',
    change: (o) => void (o.vendorConfig.licenseData = 'ABCD1234EFGH567'),
    path: 'vendorConfig.licenseData',
    rule: 'format',
  },
  {
    title: 'K16 licenseData of 7 digits',
    kind: 'K16',
    change: (o) => void (o.vendorConfig.licenseData = '1234567'),
    path: 'vendorConfig.licenseData',
    rule: 'format',
  },
  {
    title: 'K15A ionKey with a short group',
    kind: 'K15A',
    change: (o) => void (o.vendorConfig.ionKey = '0123456789-abcdef0-2345-6789-abcd-ef0123456789'),
    path: 'vendorConfig.ionKey',
    rule: 'format',
  },
  {
    title: 'K15B in MVE 4/16 (8/32 only)',
    kind: 'K15B',
    change: (o) => void (o.vendorConfig.mveLabel = 'MVE 4/16'),
    path: 'vendorConfig.mveLabel',
    rule: 'size-not-for-kind',
  },
  {
    title: 'K4 cloudInit not base64',
    kind: 'K4',
    change: (o) => void (o.vendorConfig.cloudInit = '#cloud-config\nhostname: x'),
    path: 'vendorConfig.cloudInit',
    rule: 'base64',
  },
  {
    title: 'K1 with a vendor key in vendorConfig',
    kind: 'K1',
    change: (o) => void (o.vendorConfig.vendor = '6WIND'),
    path: 'vendorConfig.vendor',
    rule: 'unknown-field',
  },
  {
    title: 'a two-mode image given the fields of both modes',
    kind: 'K4',
    change: (o) => void (o.vendorConfig.sshPublicKey = exampleOf('K1').request.vendorConfig.sshPublicKey),
    path: 'vendorConfig',
    rule: 'kind-no-match',
  },
  { title: 'term of 6 months', kind: 'K3', change: (o) => void (o.term = 6), path: 'term', rule: 'allowed-values' },
  {
    title: 'productType other than MVE',
    kind: 'K3',
    change: (o) => void (o.productType = 'MCR'),
    path: 'productType',
    rule: 'allowed-values',
  },
  {
    title: 'no productName',
    kind: 'K3',
    change: (o) => void delete o.productName,
    path: 'productName',
    rule: 'required',
  },
  {
    title: 'productSize naming another size than mveLabel',
    kind: 'K3',
    change: (o) => void (o.vendorConfig.productSize = 'LARGE'),
    path: 'vendorConfig.productSize',
    rule: 'size-conflict',
  },
];

for (const refusal of REFUSED) {
  test(`refused by the simulator's own rules: ${refusal.title}`, async (t) => {
    const { sim, session, catalog } = await started(t);
    const order = orderFor(exampleOf(refusal.kind), catalog);
    refusal.change(order);
    const answer = await session.validate([order]);
    t.is(answer.status, 400, JSON.stringify(answer.body));
    t.deepEqual(Object.keys(answer.body).sort(), ['data', 'message', 'trace_id']);
    t.is(answer.headers.get('trace-id'), String(answer.body['trace_id']));
    t.deepEqual(
      issuesOf(answer).map((found) => [found.path, found.rule]),
      [[refusal.path, refusal.rule]],
      `only the broken rule is reported: ${JSON.stringify(answer.body)}`,
    );
    t.regex(String(answer.body['message']), new RegExp(`^Validation failed: ${refusal.path.replace(/\./g, '\\.')}: `));
    if (refusal.secret) t.false(JSON.stringify(answer.body).includes(refusal.secret), 'the value is not echoed');
    t.is(sim.state().calls.validate, 1);
  });
}
