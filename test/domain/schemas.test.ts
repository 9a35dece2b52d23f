/** Read leniently, write exactly: the API readers and writers of schemas/. */
import test from 'ava';
import {
  apiErrorBodySchema,
  buyEnvelopeSchema,
  buyResponseSchema,
  imagesResponseSchema,
  locationsResponseSchema,
  orderObjectSchema,
  tokenResponseSchema,
  validateBodySchema,
  validateResponseSchema,
  variantsResponseSchema,
} from '../../schemas/index.js';

const location = {
  id: 61,
  name: 'Equinix SY1',
  address: {
    street: '1 Example St',
    suburb: null,
    city: 'Sydney',
    state: 'NSW',
    postcode: '2000',
    country: 'Australia',
  },
  dataCentre: { id: 9, name: 'SY1' },
  metro: 'Sydney',
  market: 'AU',
  status: 'Active',
  diversityZones: {
    red: { mcrSpeedMbps: [1000], portSpeedMbps: [10000], mveMaxCpuCoreCount: null, mveAvailable: true },
  },
  ordering_message: null,
  liveDate: 1500000000000,
};

test('locations: a bare array or { data: [...] } both yield the array, extra fields kept', (t) => {
  const fromArray = locationsResponseSchema.parse([location]);
  const fromEnvelope = locationsResponseSchema.parse({ message: 'ok', data: [location], terms: 'x' });
  t.deepEqual(fromArray, fromEnvelope);
  t.is(fromArray[0].id, 61);
  t.is((fromArray[0] as Record<string, unknown>)['liveDate'], 1500000000000);
});

test('locations: string ids, informational ids as strings, nulls where harmless', (t) => {
  const [parsed] = locationsResponseSchema.parse([
    {
      ...location,
      id: '61',
      dataCentre: { id: 'dc-9', name: null },
      metro: null,
      market: null,
      diversityZones: null,
      address: null,
    },
  ]);
  t.is(parsed.id, 61);
  t.is(parsed.dataCentre!.id, 'dc-9');
  t.is(locationsResponseSchema.parse([{ ...location, name: null }])[0].name, '');
  t.false(locationsResponseSchema.safeParse([{ ...location, id: 'sixty-one' }]).success);
  t.false(locationsResponseSchema.safeParse({ locations: [location] }).success);
});

test('images: unknown size labels, string vendorProductId, null sizes and versions tolerated', (t) => {
  const body = {
    message: 'ok',
    terms: 'terms',
    data: {
      mveImages: [
        {
          vendor: 'Fortinet',
          product: 'FortiGate-VM',
          vendorProductId: 'vp-4',
          extra: 1,
          images: [
            {
              id: 101,
              version: '7.2.9',
              productCode: 'FG',
              releaseImage: true,
              availableSizes: ['MVE 2/8', 'MVE 12/48'],
              vendorDescription: 'x',
              future: 'kept',
            },
            {
              id: '102',
              version: null,
              productCode: null,
              releaseImage: null,
              availableSizes: null,
              vendorDescription: null,
            },
          ],
        },
      ],
      other: true,
    },
  };
  const parsed = imagesResponseSchema.parse(body);
  const [first, second] = parsed.data.mveImages[0].images;
  t.deepEqual(first.availableSizes, ['MVE 2/8', 'MVE 12/48']);
  t.is((first as Record<string, unknown>)['future'], 'kept');
  t.is(second.id, 102);
  t.deepEqual(second.availableSizes, []);
  t.is(second.version, '');
  t.is(parsed.data.mveImages[0].vendorProductId, 'vp-4');
});

test('validate and buy responses: what the engine needs is required, the rest lenient', (t) => {
  const validated = validateResponseSchema.parse({
    message: 'Validation passed',
    terms: 't',
    data: [
      {
        price: { monthlyRate: '123.45', currency: 'AUD', productType: 'MVE' },
        serviceName: 'x',
        productType: 'MVE',
        productUid: 'u',
        more: 1,
      },
    ],
  });
  t.is(validated.data[0].price.monthlyRate, 123.45);
  t.false(
    validateResponseSchema.safeParse({ message: 'Validation passed', data: [{ price: { currency: 'AUD' } }] }).success,
  );
  const bought = buyResponseSchema.parse({
    message: 'created',
    data: [
      {
        technicalServiceUid: '3f1c2a9e-7b4d-4e8f-9a6b-2c5d8e1f0a3b',
        provisioningStatus: 'DEPLOYABLE',
        contractTermMonths: 12,
        serviceName: null,
      },
    ],
  });
  t.is(bought.data[0].provisioningStatus, 'DEPLOYABLE');
  t.false(buyResponseSchema.safeParse({ data: [{ provisioningStatus: 'DEPLOYABLE' }] }).success);
});

test('token, variants and error bodies', (t) => {
  t.like(tokenResponseSchema.parse({ access_token: 'abc', expires_in: '3600', token_type: 'Bearer', scope: 'x' }), {
    access_token: 'abc',
    expires_in: 3600,
  });
  t.false(tokenResponseSchema.safeParse({ access_token: '', expires_in: 1 }).success);
  t.true(variantsResponseSchema.safeParse([{ anything: 1 }]).success);
  t.true(variantsResponseSchema.safeParse({ data: { sizes: [] } }).success);
  t.like(apiErrorBodySchema.parse({ message: 'Bad', data: { field: 'term' }, trace_id: 1234 }), {
    message: 'Bad',
    trace_id: '1234',
  });
  t.like(apiErrorBodySchema.parse({ message: 42, trace_id: null, other: true }), {
    message: undefined,
    trace_id: undefined,
  });
});

const order = {
  locationId: 61,
  productName: 'edge',
  productType: 'MVE',
  term: 12,
  promoCode: null,
  vendorConfig: { imageId: 4, mveLabel: 'MVE 4/16', sshPublicKey: 'ssh-rsa AAAA', manageLocally: true },
  vnics: [{ description: 'WAN' }],
};

test('the order object is written exactly', (t) => {
  t.true(orderObjectSchema.safeParse(order).success);
  t.true(orderObjectSchema.safeParse({ ...order, vendorConfig: { imageId: 4, productSize: 'MEDIUM' } }).success);
  for (const broken of [
    { ...order, extra: 1 },
    { ...order, productType: 'MCR' },
    { ...order, term: 13 },
    { ...order, locationId: '61' },
    { ...order, vnics: [] },
    { ...order, vnics: Array.from({ length: 6 }, () => ({})) },
    { ...order, vnics: [{ description: 'x', mac: 'y' }] },
    { ...order, vendorConfig: { ...order.vendorConfig, imageId: 4.5 } },
    { ...order, vendorConfig: { ...order.vendorConfig, mveLabel: '4/16' } },
    { ...order, vendorConfig: { ...order.vendorConfig, nested: { a: 1 } } },
    { ...order, vendorConfig: { imageId: 4 } },
  ]) {
    t.false(orderObjectSchema.safeParse(broken).success, JSON.stringify(broken).slice(0, 120));
  }
});

test('validate body is a one-element array; buy envelope wraps orders with discount codes', (t) => {
  t.true(validateBodySchema.safeParse([order]).success);
  t.false(validateBodySchema.safeParse([order, order]).success);
  t.false(validateBodySchema.safeParse(order).success);
  t.true(buyEnvelopeSchema.safeParse({ networkDesign: [order], discountCodes: [] }).success);
  t.false(buyEnvelopeSchema.safeParse({ networkDesign: [order] }).success);
  t.false(buyEnvelopeSchema.safeParse({ networkDesign: [], discountCodes: [] }).success);
  t.false(buyEnvelopeSchema.safeParse({ networkDesign: [order], discountCodes: [], extra: 1 }).success);
});
