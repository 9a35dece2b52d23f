/**
 * Builds what the API receives from a checked request and the resolved location and image: the order
 * object (spec 2.3), the validate body (4.3) and the buy envelope (4.4). The result is checked again with
 * checkOrderObject, so nothing that breaks a rule leaves here.
 */
import type { BuyEnvelope, OrderObject, OrderRequest, ValidateBody } from '../schemas/index.js';
import { checkOrderObject } from './check-order.js';
import type { Issue } from './issues.js';
import { DEFAULT_KIND_MAP, type KindMap } from './kind-map.js';
import { omittedVnicsWarning } from './kind-rules.js';
import { COMMON_VENDOR_FIELDS, type KindId } from './kinds.js';
import { kindScope, resolveKind } from './resolve-kind.js';
import { resolveRequestSize } from './sizes.js';

export interface BuiltOrder {
  order: OrderObject;
  validateBody: ValidateBody;
  buyEnvelope: BuyEnvelope;
  kind: KindId;
  warnings: Issue[];
}

/** Thrown when the request cannot make a valid order; `issues` say why (no secret values). */
export class OrderBuildError extends Error {
  constructor(readonly issues: Issue[]) {
    super(`the order cannot be built: ${issues.map((entry) => `${entry.path}: ${entry.message}`).join('; ')}`);
    this.name = 'OrderBuildError';
  }
}

/** The appliance kind an image makes of a request, the size label it is sold in, and what a person should know. */
export interface OrderKind {
  kind: KindId;
  sizeLabel: string;
  warnings: Issue[];
}

/**
 * Which kind of appliance the request is for on this image (the image family allows the kinds; the supplied
 * fields pick one). Throws OrderBuildError when the size or the kind cannot be told.
 */
export function resolveOrderKind(
  request: OrderRequest,
  image: { vendor: string; product: string },
  options: { kindMap?: KindMap } = {},
): OrderKind {
  const kindMap = options.kindMap ?? DEFAULT_KIND_MAP;
  const size = resolveRequestSize(request.size, request.productSize);
  if (size.label === undefined || size.errors.length > 0)
    throw new OrderBuildError(
      size.errors.length > 0 ? size.errors : [{ path: 'size', rule: 'required', message: 'size is required' }],
    );

  const scope = kindScope(image, kindMap);
  if (!scope.ok) throw new OrderBuildError([scope.issue]);
  const resolution = resolveKind(
    {
      config: request.vendorConfig,
      size: size.label,
      sizePath: size.path,
      ...(request.vnics ? { vnicCount: request.vnics.length } : {}),
      hint: request.kind,
    },
    scope.value,
  );
  if (!resolution.ok) throw new OrderBuildError(resolution.issues);
  const warnings = [...size.warnings];
  if (!request.vnics) warnings.push(omittedVnicsWarning(resolution.kind));
  return { kind: resolution.kind, sizeLabel: size.label, warnings };
}

/** The product's name at the provider: the request's, with the order id, so ops can find an order's product. */
export function productNameOf(request: Pick<OrderRequest, 'productName'>, orderId: string): string {
  return `${request.productName} [${orderId}]`;
}

/**
 * The order object, validate body and buy envelope. `orderId`: the order the product is bought for, named in the
 * product's name (`productNameOf`); without it (an offline check), the request's product name as it stands.
 */
export function buildOrder(
  request: OrderRequest,
  location: { id: number },
  image: { id: number; vendor: string; product: string; availableSizes?: readonly string[] },
  options: { kindMap?: KindMap; orderId?: string } = {},
): BuiltOrder {
  const kindMap = options.kindMap ?? DEFAULT_KIND_MAP;
  const { kind, sizeLabel, warnings } = resolveOrderKind(request, image, { kindMap });

  const promoCode = request.promoCode?.trim() ? request.promoCode : null;
  const order = {
    locationId: location.id,
    productName: options.orderId === undefined ? request.productName : productNameOf(request, options.orderId),
    productType: 'MVE',
    term: request.term,
    promoCode,
    vendorConfig: { imageId: image.id, mveLabel: sizeLabel, ...withoutEngineFields(request.vendorConfig) },
    ...(request.vnics ? { vnics: request.vnics.map((vnic) => ({ ...vnic })) } : {}),
  } as OrderObject;

  const checked = checkOrderObject(order, image, { kindMap });
  if (!checked.ok) throw new OrderBuildError(checked.errors);

  return {
    order,
    validateBody: [order],
    buyEnvelope: { networkDesign: [order], discountCodes: [] },
    kind,
    warnings,
  };
}

/** imageId and mveLabel come from the resolved image and size, never from the ticket. */
function withoutEngineFields(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).filter(([name]) => !(COMMON_VENDOR_FIELDS as readonly string[]).includes(name)),
  );
}
