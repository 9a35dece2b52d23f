/** The order builder (spec 2.3, 4.3, 4.4) and the server-side order-object check. */
import test from 'ava';
import { buildOrder, checkOrderObject, KIND_IDS, OrderBuildError, type KindId } from '../../domain/index.js';
import {
  buyEnvelopeSchema,
  orderObjectSchema,
  orderRequestSchema,
  validateBodySchema,
  type OrderRequest,
} from '../../schemas/index.js';
import { FAMILY, validRequest } from './helpers/fixtures.js';

const LOCATION = { id: 61 };
const imageFor = (kind: KindId) => ({ id: 4242, ...(FAMILY[kind] ?? { vendor: 'Acme', product: 'Firewall' }) });
const kindMapFor = (kind: KindId) =>
  FAMILY[kind] ? undefined : [{ vendor: 'Acme', product: 'Firewall', kinds: [kind] }];

function parsedRequest(kind: KindId, overrides: Record<string, unknown> = {}): OrderRequest {
  return orderRequestSchema.parse(validRequest(kind, overrides));
}

for (const kind of KIND_IDS) {
  test(`${kind}: the built order, validate body and buy envelope are exact and pass the server-side check`, (t) => {
    const kindMap = kindMapFor(kind);
    const request = parsedRequest(kind);
    const built = buildOrder(request, LOCATION, imageFor(kind), kindMap ? { kindMap } : {});
    t.is(built.kind, kind);
    t.true(orderObjectSchema.safeParse(built.order).success);
    t.true(validateBodySchema.safeParse(built.validateBody).success);
    t.true(buyEnvelopeSchema.safeParse(built.buyEnvelope).success);
    t.deepEqual(built.validateBody, [built.order]);
    t.deepEqual(built.buyEnvelope, { networkDesign: [built.order], discountCodes: [] });
    t.like(built.order, {
      locationId: 61,
      productName: request.productName,
      productType: 'MVE',
      term: 12,
      promoCode: null,
    });
    t.deepEqual(built.order.vendorConfig, { imageId: 4242, mveLabel: request.size, ...request.vendorConfig });
    t.false('vendor' in built.order.vendorConfig);
    t.deepEqual(built.order.vnics, request.vnics);
    t.like(
      checkOrderObject(built.order, { ...imageFor(kind), availableSizes: [request.size!] }, kindMap ? { kindMap } : {}),
      { ok: true, kind, errors: [] },
    );
  });
}

test('omitted vnics stay omitted, with a warning naming the minimum the API allocates', (t) => {
  const request = parsedRequest('K6', { vnics: undefined });
  const built = buildOrder(request, LOCATION, imageFor('K6'));
  t.false('vnics' in built.order);
  t.deepEqual(
    built.warnings.map((warning) => warning.rule),
    ['vnics-default'],
  );
  t.regex(built.warnings[0].message, /minimum of 4 vNICs/);
});

test('legacy productSize becomes mveLabel; productSize itself is not sent', (t) => {
  const request = parsedRequest('K9', { size: undefined, productSize: 'X_LARGE_16' });
  const built = buildOrder(request, LOCATION, imageFor('K9'));
  t.is(built.order.vendorConfig.mveLabel, 'MVE 16/64');
  t.false('productSize' in built.order.vendorConfig);
  t.true(built.warnings.some((warning) => warning.rule === 'product-size-deprecated'));
});

test('a promo code is sent; an empty one is sent as null', (t) => {
  t.is(buildOrder(parsedRequest('K9', { promoCode: 'SPRING' }), LOCATION, imageFor('K9')).order.promoCode, 'SPRING');
  t.is(buildOrder(parsedRequest('K9', { promoCode: ' ' }), LOCATION, imageFor('K9')).order.promoCode, null);
});

test('a request that breaks a rule is not built: OrderBuildError lists the issues', (t) => {
  const request = parsedRequest('K6', { size: 'MVE 2/8' });
  const error = t.throws(() => buildOrder(request, LOCATION, imageFor('K6')), { instanceOf: OrderBuildError });
  t.deepEqual(
    error.issues.map((entry) => [entry.path, entry.rule]),
    [['vendorConfig.mveLabel', 'size-not-for-kind']],
  );
  const unknownFamily = t.throws(
    () => buildOrder(parsedRequest('K9'), LOCATION, { id: 1, vendor: 'Acme', product: 'X' }),
    { instanceOf: OrderBuildError },
  );
  t.is(unknownFamily.issues[0].rule, 'kind-unknown-image');
});

const validOrder = () => buildOrder(parsedRequest('K6'), LOCATION, imageFor('K6')).order;
const FTDV = { vendor: 'Cisco', product: 'FTDv' };

test('checkOrderObject refuses what the writer schema refuses, by path', (t) => {
  const order = {
    ...validOrder(),
    productType: 'MCR',
    term: 6,
    extra: true,
    vendorConfig: { ...validOrder().vendorConfig, imageId: 'x' },
  };
  t.deepEqual(
    checkOrderObject(order, FTDV)
      .errors.map((error) => [error.path, error.rule])
      .sort(),
    [
      ['extra', 'unknown-field'],
      ['productType', 'allowed-values'],
      ['term', 'allowed-values'],
      ['vendorConfig.imageId', 'type'],
    ],
  );
  t.true(checkOrderObject(order, FTDV).errors.some((error) => error.message === 'productType must be "MVE"'));
});

test('checkOrderObject applies the kind rules: fields, vNICs, sizes, offered sizes, vendor key', (t) => {
  const base = validOrder();
  const broken = {
    ...base,
    vnics: [{}],
    vendorConfig: { ...base.vendorConfig, mveLabel: 'MVE 2/8', manageLocally: false, vendor: 'cisco' },
  };
  t.deepEqual(
    checkOrderObject(broken, { ...FTDV, availableSizes: ['MVE 4/16'] })
      .errors.map((error) => [error.path, error.rule])
      .sort(),
    [
      ['vendorConfig.fmcIpAddress', 'required-when'],
      ['vendorConfig.fmcRegistrationKey', 'required-when'],
      ['vendorConfig.mveLabel', 'size-not-for-kind'],
      ['vendorConfig.mveLabel', 'size-not-offered'],
      ['vendorConfig.vendor', 'unknown-field'],
      ['vnics', 'vnics-min'],
    ],
  );
});

test('checkOrderObject: legacy productSize is accepted, a disagreeing pair is not, and one of them is required', (t) => {
  const base = validOrder();
  const withoutLabel = { ...base.vendorConfig };
  delete withoutLabel.mveLabel;
  t.like(checkOrderObject({ ...base, vendorConfig: { ...withoutLabel, productSize: 'MEDIUM' } }, FTDV), { ok: true });
  t.deepEqual(
    checkOrderObject({ ...base, vendorConfig: { ...base.vendorConfig, productSize: 'LARGE' } }, FTDV).errors.map(
      (error) => [error.path, error.rule],
    ),
    [['vendorConfig.productSize', 'size-conflict']],
  );
  t.deepEqual(
    checkOrderObject({ ...base, vendorConfig: withoutLabel }, FTDV).errors.map((error) => [error.path, error.rule]),
    [['vendorConfig.mveLabel', 'required']],
  );
});

test('checkOrderObject: an image family the map does not know is named on imageId', (t) => {
  t.deepEqual(
    checkOrderObject(validOrder(), { vendor: 'Acme', product: 'Nope' }).errors.map((error) => [error.path, error.rule]),
    [['vendorConfig.imageId', 'kind-unknown-image']],
  );
  t.like(checkOrderObject('nope', FTDV), { ok: false, errors: [{ path: 'order', rule: 'type' }] });
});
