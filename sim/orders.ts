import { randomUUID } from 'node:crypto';
import { checkOrderObject, isLocationUsable, LEGACY_SIZE_LABELS, type Issue } from '../domain/index.js';
import type { SimEnvironment } from './auth.js';
import type { SimCatalog, SimProduct } from './endpoints.js';
import { apiError, ok, type SimResponse } from './http.js';
import type { SimLocation } from './locations.js';
import { priceOf, type Price } from './pricing.js';
import type { SimState } from './server.js';

interface CheckedOrder {
  productName: string;
  term: number;
  locationId: number;
  imageId: number;
  mveLabel: string;
  price: Price;
}

/** POST /v3/networkdesign/validate: a bare array of order objects (spec 4.3), priced when all pass. */
export function validate(catalog: SimCatalog, body: unknown, terms: string): SimResponse {
  if (!Array.isArray(body) || body.length === 0) {
    return apiError(400, 'The validate body must be a JSON array of order objects');
  }
  const checked = checkOrders(catalog, body);
  if (!checked.ok) return checked.response;
  return ok({
    message: 'Validation passed',
    terms,
    data: checked.orders.map((order) => ({
      price: { ...order.price, productType: 'MVE' },
      serviceName: order.productName,
      productType: 'MVE',
      productUid: randomUUID(),
    })),
  });
}

/** POST /v4/networkdesign/buy: the envelope of spec 4.4; every order passes the checks or nothing is created. */
export function buy(
  state: SimState,
  buyer: { environment: SimEnvironment; clientId: string },
  body: unknown,
  terms: string,
): SimResponse {
  const envelopeProblem = checkEnvelope(body);
  if (envelopeProblem) return apiError(400, envelopeProblem.message, [envelopeProblem]);
  const checked = checkOrders(state.catalog, (body as { networkDesign: unknown[] }).networkDesign, 'networkDesign');
  if (!checked.ok) return checked.response;
  const created = checked.orders.map((order): SimProduct => ({
    environment: buyer.environment,
    clientId: buyer.clientId,
    technicalServiceUid: randomUUID(),
    serviceName: order.productName,
    productType: 'MVE',
    provisioningStatus: 'DEPLOYABLE',
    contractTermMonths: order.term,
    locationId: order.locationId,
    imageId: order.imageId,
    mveLabel: order.mveLabel,
    monthlyRate: order.price.monthlyRate,
    currency: order.price.currency,
    createdAt: new Date().toISOString(),
  }));
  state.products.push(...created);
  return ok({
    message: created.map((product) => `MVE ${product.technicalServiceUid} has been created`).join('; '),
    terms,
    data: created.map((product) => ({
      serviceName: product.serviceName,
      technicalServiceUid: product.technicalServiceUid,
      productType: product.productType,
      provisioningStatus: product.provisioningStatus,
      contractTermMonths: product.contractTermMonths,
    })),
  });
}

function checkEnvelope(body: unknown): Issue | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { path: 'request', rule: 'type', message: 'the buy body must be an object {networkDesign, discountCodes}' };
  }
  const envelope = body as Record<string, unknown>;
  if (!Array.isArray(envelope['networkDesign']) || envelope['networkDesign'].length === 0) {
    return { path: 'networkDesign', rule: 'required', message: 'networkDesign must be a non-empty array of order objects' };
  }
  const codes = envelope['discountCodes'];
  if (!Array.isArray(codes) || codes.some((code) => typeof code !== 'string')) {
    return { path: 'discountCodes', rule: 'required', message: 'discountCodes must be an array of strings (empty when none applies)' };
  }
  const unknown = Object.keys(envelope).filter((key) => !['networkDesign', 'discountCodes', 'solutions'].includes(key));
  if (unknown.length > 0) return { path: unknown[0]!, rule: 'unknown-field', message: `${unknown[0]} is not a known field here` };
  return undefined;
}

type OrdersCheck = { ok: true; orders: CheckedOrder[] } | { ok: false; response: SimResponse };

/** Every rule of spec 2.3-2.7 (the domain's checkOrderObject) plus what only the catalog knows. */
function checkOrders(catalog: SimCatalog, orders: unknown[], prefix = ''): OrdersCheck {
  const issues: Issue[] = [];
  const checked: CheckedOrder[] = [];
  orders.forEach((order, index) => {
    const where = [prefix, orders.length > 1 || prefix ? String(index) : ''].filter(Boolean).join('.');
    const result = checkOrder(catalog, order);
    if ('issues' in result) issues.push(...result.issues.map((found) => ({ ...found, path: where ? `${where}.${found.path}` : found.path })));
    else checked.push(result);
  });
  if (issues.length > 0) {
    const summary = issues.slice(0, 3).map((found) => `${found.path}: ${found.message}`).join('; ');
    return { ok: false, response: apiError(400, `Validation failed: ${summary}${issues.length > 3 ? `; and ${issues.length - 3} more` : ''}`, issues) };
  }
  return { ok: true, orders: checked };
}

function checkOrder(catalog: SimCatalog, order: unknown): CheckedOrder | { issues: Issue[] } {
  const fields = (typeof order === 'object' && order !== null ? order : {}) as Record<string, unknown>;
  const vendorConfig = (typeof fields['vendorConfig'] === 'object' && fields['vendorConfig'] !== null ? fields['vendorConfig'] : {}) as Record<string, unknown>;
  const imageId = vendorConfig['imageId'];
  const group = catalog.imageGroups.find((candidate) => candidate.images.some((image) => image.id === imageId));
  const image = group?.images.find((candidate) => candidate.id === imageId);
  const issues: Issue[] = [];
  if (!group || !image) {
    issues.push({ path: 'vendorConfig.imageId', rule: 'image-not-found', message: `imageId ${String(imageId)} is not an image of the images catalog` });
  } else {
    issues.push(...checkOrderObject(order, { vendor: group.vendor, product: group.product, availableSizes: image.availableSizes }, { kindMap: catalog.kindMap }).errors);
  }
  const location = catalog.locations.find((candidate) => candidate.id === fields['locationId']);
  const sizeLabel = sizeOf(vendorConfig);
  if (!location) {
    issues.push({ path: 'locationId', rule: 'location-not-found', message: `locationId ${String(fields['locationId'])} is not a location` });
  } else {
    issues.push(...locationIssues(location, sizeLabel));
  }
  if (issues.length > 0 || !location || !image || !sizeLabel) return { issues };
  const term = fields['term'] as number;
  return {
    productName: fields['productName'] as string,
    term,
    locationId: location.id,
    imageId: image.id,
    mveLabel: sizeLabel,
    price: scaled(priceOf(sizeLabel, term, location.market), catalog.priceFactor),
  };
}

function scaled(price: Price, factor: number): Price {
  return factor === 1 ? price : { ...price, monthlyRate: Math.round(price.monthlyRate * factor * 100) / 100 };
}

/** MVE must be available there, and the size must fit the largest vCPU count a zone offers. */
function locationIssues(location: SimLocation, sizeLabel: string | undefined): Issue[] {
  if (!isLocationUsable(location)) {
    return [{ path: 'locationId', rule: 'location-unavailable', message: `location ${location.id} (${location.name}) is not Active with MVE available` }];
  }
  const vcpu = Number(/^MVE (\d+)\//.exec(sizeLabel ?? '')?.[1]);
  const maxCores = Math.max(
    ...Object.values(location.diversityZones).map((zone) => (zone.mveAvailable ? (zone.mveMaxCpuCoreCount ?? Number.POSITIVE_INFINITY) : 0)),
  );
  if (vcpu > maxCores) {
    return [{ path: 'vendorConfig.mveLabel', rule: 'size-not-at-location', message: `size "${sizeLabel}" needs ${vcpu} vCPU; location ${location.id} offers at most ${maxCores}` }];
  }
  return [];
}

function sizeOf(vendorConfig: Record<string, unknown>): string | undefined {
  const label = vendorConfig['mveLabel'];
  if (typeof label === 'string') return label;
  const legacy = vendorConfig['productSize'];
  return typeof legacy === 'string' ? LEGACY_SIZE_LABELS[legacy as keyof typeof LEGACY_SIZE_LABELS] : undefined;
}
