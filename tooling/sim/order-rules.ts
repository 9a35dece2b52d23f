/**
 * The simulator's own check of one order object (spec 2.3-2.7 and 8), as the validate and buy endpoints
 * receive it. It is written from the spec and shares no code with the engine's domain rules: the
 * simulator is the other side of the API, and an end-to-end test can only catch a wrong rule in the
 * engine if the simulator does not apply the same wrong rule.
 *
 * What only the catalog knows (whether the image and location exist, whether a zone has the vCPU) is the
 * endpoints' part (orders.ts); this module is told which kinds the image can be and which sizes it offers.
 */
import { kindAcceptsSize, APPLIANCE_KIND_RULES, type SimKindId } from './appliance-kinds.js';
import { checkFields, isJsonObject, unknownFields, type FieldRule } from './field-checks.js';
import { pathOf, type SimIssue } from './issues.js';
import { chooseKind } from './kind-choice.js';
import { kindFieldIssues } from './kind-fields.js';
import { readOrderSize, type OrderSize } from './order-size.js';
import { anyString, jsonObject, oneOf, orNull, someText, wholeNumber } from './value-rules.js';
import { vnicCountIssues, vnicListIssues } from './vnic-rules.js';

/** What the catalog says of the image an order names. */
export interface ImageFacts {
  id: number;
  /** The kinds its family can be (one, or several modes). */
  kinds: readonly SimKindId[];
  availableSizes: readonly string[];
}

export interface OrderCheck {
  issues: SimIssue[];
  /** The size asked for, when it could be read. */
  size?: OrderSize;
  kind?: SimKindId;
}

/** Contract terms in months (spec 2.3 and 8). */
const TERMS_MONTHS: readonly number[] = [1, 12, 24, 36, 48, 60];

/** The order object's own fields (spec 2.3); vnics has rules of its own (vnic-rules.ts). */
const ORDER_FIELDS: readonly FieldRule[] = [
  { name: 'locationId', required: true, value: wholeNumber },
  { name: 'productName', required: true, value: someText },
  { name: 'productType', required: true, value: oneOf(['MVE']) },
  { name: 'term', required: true, value: oneOf(TERMS_MONTHS, ' (months)') },
  { name: 'promoCode', required: false, value: orNull(anyString) },
  { name: 'vendorConfig', required: true, value: jsonObject },
];
const ORDER_FIELD_NAMES = [...ORDER_FIELDS.map((field) => field.name), 'vnics'];
/** The image is the one vendorConfig field every kind shares besides the size (spec 2.4; order-size.ts). */
const IMAGE_ID: FieldRule = { name: 'imageId', required: true, value: wholeNumber };

/**
 * `basePath` is where the order sits in the body (`networkDesign.0` in a buy, nothing in a validate);
 * `image` is undefined when the catalog has no image of that id (the caller reports that).
 */
export function checkOrderBody(order: unknown, image: ImageFacts | undefined, basePath = ''): OrderCheck {
  if (!isJsonObject(order))
    return { issues: [{ path: basePath || 'order', rule: 'type', message: 'an order must be a JSON object' }] };
  const issues = [...unknownFields(order, ORDER_FIELD_NAMES, basePath), ...checkFields(order, ORDER_FIELDS, basePath)];
  const vnicsPath = pathOf(basePath, 'vnics');
  const vnics = order['vnics'];
  const vnicIssues = vnics === undefined ? [] : vnicListIssues(vnics, vnicsPath);
  issues.push(...vnicIssues);

  const vendorConfig = order['vendorConfig'];
  if (!isJsonObject(vendorConfig)) return { issues };
  const configPath = pathOf(basePath, 'vendorConfig');
  const sizeReading = readOrderSize(vendorConfig, configPath);
  issues.push(...checkFields(vendorConfig, [IMAGE_ID], configPath), ...sizeReading.issues);
  if (!image) return { issues, ...(sizeReading.size ? { size: sizeReading.size } : {}) };

  const choice = chooseKind(image.kinds, vendorConfig, configPath, image.id);
  if (!choice.ok) return { issues: [...issues, choice.issue] };
  const { kind } = choice;
  issues.push(...kindFieldIssues(kind, vendorConfig, configPath));
  if (Array.isArray(vnics) && vnicIssues.length === 0) issues.push(...vnicCountIssues(kind, vnics.length, vnicsPath));
  const { size } = sizeReading;
  if (size) issues.push(...sizeIssues(kind, image, size));
  return { issues, kind, ...(size ? { size } : {}) };
}

/** The kind's own restriction first (spec 2.5: K6, K15); then the catalog's word on the image (2.6). */
function sizeIssues(kind: SimKindId, image: ImageFacts, size: OrderSize): SimIssue[] {
  if (!kindAcceptsSize(kind, size.label)) {
    return [
      {
        path: size.path,
        rule: 'size-not-for-kind',
        message: `size "${size.label}" is not available for kind ${kind} (${APPLIANCE_KIND_RULES[kind].title})`,
      },
    ];
  }
  if (!image.availableSizes.includes(size.label)) {
    const offered = image.availableSizes.join(', ') || 'none';
    return [
      {
        path: size.path,
        rule: 'size-not-offered',
        message: `size "${size.label}" is not offered for image ${image.id}; offered: ${offered}`,
      },
    ];
  }
  return [];
}
