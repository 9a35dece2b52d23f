/**
 * vendorConfig against one appliance kind (spec 2.4, 2.5): the common fields plus exactly that kind's
 * own, each with a good value. Anything else is refused, `vendor` above all: the image alone chooses it.
 */
import { APPLIANCE_KIND_RULES, type SimKindId } from './appliance-kinds.js';
import { checkFields } from './field-checks.js';
import { pathOf, type SimIssue } from './issues.js';

/** The vendorConfig fields of every kind (spec 2.4); the order's own checks look at them. */
export const COMMON_VENDOR_FIELDS: readonly string[] = ['imageId', 'mveLabel', 'productSize'];

export function kindFieldIssues(kind: SimKindId, vendorConfig: Record<string, unknown>, basePath: string): SimIssue[] {
  const { title, fields } = APPLIANCE_KIND_RULES[kind];
  const own = fields.map((field) => field.name);
  const stray = Object.keys(vendorConfig)
    .filter((name) => !COMMON_VENDOR_FIELDS.includes(name) && !own.includes(name))
    .map((name): SimIssue => ({
      path: pathOf(basePath, name),
      rule: 'unknown-field',
      message:
        name === 'vendor'
          ? 'vendor is not a vendorConfig field: the image chooses the vendor (spec 2.4)'
          : `${name} is not a field of kind ${kind} (${title}), whose fields are ${own.join(', ')}`,
    }));
  return [...stray, ...checkFields(vendorConfig, fields, basePath, ` for kind ${kind} (${title})`)];
}

/** The fields a kind cannot do without, for messages. */
export function requiredFieldsOf(kind: SimKindId): string[] {
  return APPLIANCE_KIND_RULES[kind].fields.filter((field) => field.required === true).map((field) => field.name);
}
