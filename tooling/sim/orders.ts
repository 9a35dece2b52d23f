/**
 * The two endpoints that take orders: validate (spec 4.3) and buy (4.4). Each order is checked by the
 * simulator's own rules (order-rules.ts), then against what only the catalog knows: that its image and
 * location exist, that MVE is available at the location, and that a zone there has the vCPU the size needs.
 */
import { randomUUID } from 'node:crypto';
import type { SimEnvironment } from './auth.js';
import { timelineOf } from './provisioning.js';
import type { SimBoughtProduct, SimCatalog } from './state.js';
import { isJsonObject } from './field-checks.js';
import { apiError, ok, parseJsonBody, type SimResponse } from './http.js';
import { pathOf, type SimIssue } from './issues.js';
import { kindsOfFamily } from './kind-map.js';
import type { SimLocation } from './locations.js';
import { checkOrderBody, type ImageFacts } from './order-rules.js';
import { priceOf, type Price } from './pricing.js';
import type { SimState } from './state.js';
import { readSizeLabel } from './sizes.js';

interface CheckedOrder {
  productName: string;
  term: number;
  locationId: number;
  imageId: number;
  mveLabel: string;
  price: Price;
}

/** POST /v3/networkdesign/validate: a bare array holding one order object (spec 4.3), priced when it passes. */
export function validate(catalog: SimCatalog, body: unknown, terms: string): SimResponse {
  if (!Array.isArray(body) || body.length !== 1) {
    return apiError(400, 'The validate body must be a JSON array holding one order object');
  }
  const checked = checkOrders(catalog, body, '');
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

/**
 * The `echo` fault's answer to a validate (an array of orders) or a buy (an envelope): 400, quoting the first order's
 * vendorConfig `field` as it was sent, in the message and in the issue, as APIs that quote the offending value do.
 */
export function echoedRefusal(text: string, field: string): SimResponse {
  const parsed = parseJsonBody(text);
  if (!parsed.ok) return parsed.response;
  const envelope = isJsonObject(parsed.value) ? parsed.value['networkDesign'] : undefined;
  const orders = Array.isArray(parsed.value) ? parsed.value : envelope;
  const order: unknown = Array.isArray(orders) ? orders[0] : undefined;
  const vendorConfig = isJsonObject(order) && isJsonObject(order['vendorConfig']) ? order['vendorConfig'] : {};
  const path = pathOf(Array.isArray(parsed.value) ? '' : pathOf('networkDesign', 0), 'vendorConfig', field);
  const message = `the value ${JSON.stringify(vendorConfig[field] ?? null)} is not accepted`;
  return apiError(400, `Validation failed: ${path}: ${message}`, [{ path, rule: 'not-accepted', message }]);
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
  const created = checked.orders.map((order): SimBoughtProduct => ({
    environment: buyer.environment,
    clientId: buyer.clientId,
    technicalServiceUid: randomUUID(),
    serviceName: order.productName,
    productType: 'MVE',
    contractTermMonths: order.term,
    locationId: order.locationId,
    imageId: order.imageId,
    mveLabel: order.mveLabel,
    monthlyRate: order.price.monthlyRate,
    currency: order.price.currency,
    createdAt: new Date().toISOString(),
    timeline: timelineOf(state.provisioning, state.faults.takeProvisioning()),
  }));
  state.products.push(...created);
  return ok({
    message: created.map((product) => `MVE ${product.technicalServiceUid} has been created`).join('; '),
    terms,
    data: created.map((product) => ({
      serviceName: product.serviceName,
      technicalServiceUid: product.technicalServiceUid,
      productType: product.productType,
      // Every product starts so, however short its course (provisioning.ts).
      provisioningStatus: 'DEPLOYABLE',
      contractTermMonths: product.contractTermMonths,
    })),
  });
}

function checkEnvelope(body: unknown): SimIssue | undefined {
  if (!isJsonObject(body)) {
    return { path: 'request', rule: 'type', message: 'the buy body must be an object {networkDesign, discountCodes}' };
  }
  const envelope = body;
  if (!Array.isArray(envelope['networkDesign']) || envelope['networkDesign'].length === 0) {
    return {
      path: 'networkDesign',
      rule: 'required',
      message: 'networkDesign must be a non-empty array of order objects',
    };
  }
  const codes = envelope['discountCodes'];
  if (!Array.isArray(codes) || codes.some((code) => typeof code !== 'string')) {
    return {
      path: 'discountCodes',
      rule: 'required',
      message: 'discountCodes must be an array of strings (empty when none applies)',
    };
  }
  if (envelope['solutions'] !== undefined && !Array.isArray(envelope['solutions'])) {
    return { path: 'solutions', rule: 'type', message: 'solutions must be an array (omit it for a standalone MVE)' };
  }
  const unknown = Object.keys(envelope).filter((key) => !['networkDesign', 'discountCodes', 'solutions'].includes(key));
  if (unknown.length > 0)
    return {
      path: pathOf('', unknown[0]),
      rule: 'unknown-field',
      message: `${unknown[0]} is not a field of the buy envelope`,
    };
  return undefined;
}

type OrdersCheck = { ok: true; orders: CheckedOrder[] } | { ok: false; response: SimResponse };

/** Every order must pass (order-rules.ts, then the catalog's checks), or the whole request is refused. */
function checkOrders(catalog: SimCatalog, orders: readonly unknown[], prefix: string): OrdersCheck {
  const issues: SimIssue[] = [];
  const checked: CheckedOrder[] = [];
  orders.forEach((order, index) => {
    const result = checkOrderInCatalog(catalog, order, prefix === '' ? '' : pathOf(prefix, index));
    if ('issues' in result) issues.push(...result.issues);
    else checked.push(result);
  });
  if (issues.length > 0) {
    const summary = issues
      .slice(0, 3)
      .map((found) => `${found.path}: ${found.message}`)
      .join('; ');
    return {
      ok: false,
      response: apiError(
        400,
        `Validation failed: ${summary}${issues.length > 3 ? `; and ${issues.length - 3} more` : ''}`,
        issues,
      ),
    };
  }
  return { ok: true, orders: checked };
}

function checkOrderInCatalog(
  catalog: SimCatalog,
  order: unknown,
  basePath: string,
): CheckedOrder | { issues: SimIssue[] } {
  const fields = isJsonObject(order) ? order : {};
  const vendorConfig = isJsonObject(fields['vendorConfig']) ? fields['vendorConfig'] : {};
  const image = imageFacts(catalog, vendorConfig['imageId']);
  const checked = checkOrderBody(order, image, basePath);
  const issues = [...checked.issues];
  if (!image && Number.isInteger(vendorConfig['imageId'])) {
    issues.push({
      path: pathOf(basePath, 'vendorConfig', 'imageId'),
      rule: 'image-not-found',
      message: `imageId ${String(vendorConfig['imageId'])} is not an image of the images catalog`,
    });
  }
  const location = catalog.locations.find((candidate) => candidate.id === fields['locationId']);
  if (!location && Number.isInteger(fields['locationId'])) {
    issues.push({
      path: pathOf(basePath, 'locationId'),
      rule: 'location-not-found',
      message: `locationId ${String(fields['locationId'])} is not a location`,
    });
  }
  if (location) issues.push(...locationIssues(location, checked.size, basePath));
  if (issues.length > 0 || !location || !image || !checked.size) return { issues };
  const term = fields['term'] as number;
  return {
    productName: fields['productName'] as string,
    term,
    locationId: location.id,
    imageId: image.id,
    mveLabel: checked.size.label,
    price: scaled(priceOf(checked.size.label, term, location.market), catalog.priceFactor),
  };
}

/** The catalog's image of that id and the kinds its family can be; undefined when there is none. */
function imageFacts(catalog: SimCatalog, imageId: unknown): ImageFacts | undefined {
  for (const group of catalog.imageGroups) {
    const image = group.images.find((candidate) => candidate.id === imageId);
    const kinds = image && kindsOfFamily(catalog.kindMap, group.vendor, group.product);
    if (image && kinds) return { id: image.id, kinds, availableSizes: image.availableSizes };
  }
  return undefined;
}

function scaled(price: Price, factor: number): Price {
  return factor === 1 ? price : { ...price, monthlyRate: Math.round(price.monthlyRate * factor * 100) / 100 };
}

/** MVE must be available there (spec 2.1), and a zone must offer the vCPU the size needs. */
function locationIssues(
  location: SimLocation,
  size: { label: string; path: string } | undefined,
  basePath: string,
): SimIssue[] {
  const path = pathOf(basePath, 'locationId');
  const zones = Object.values(location.diversityZones);
  if (location.status !== 'Active' || !zones.some((zone) => zone.mveAvailable)) {
    return [
      {
        path,
        rule: 'location-unavailable',
        message: `location ${location.id} (${location.name}) is not Active with MVE available`,
      },
    ];
  }
  const vcpu = size ? readSizeLabel(size.label)?.vcpu : undefined;
  if (vcpu === undefined) return [];
  const maxCores = Math.max(
    ...zones.map((zone) => (zone.mveAvailable ? (zone.mveMaxCpuCoreCount ?? Number.POSITIVE_INFINITY) : 0)),
  );
  if (vcpu > maxCores) {
    return [
      {
        path: size!.path,
        rule: 'size-not-at-location',
        message: `size "${size!.label}" needs ${vcpu} vCPU; location ${location.id} offers at most ${maxCores}`,
      },
    ];
  }
  return [];
}
