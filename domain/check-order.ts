/**
 * The server-side view: checks one order object exactly as it is sent in the validate body, against the
 * writer schema and every rule of the image's appliance kind. The API simulator's validate endpoint uses it.
 */
import {
  LEGACY_SIZE_LABELS,
  isLegacySize,
  orderObjectSchema,
  SIZE_LABEL_PATTERN,
  vnicsSchema,
} from '../schemas/index.js';
import { issue, issuesFromZod, type Issue } from './issues.js';
import { isRecord } from './json.js';
import { DEFAULT_KIND_MAP, type KindMap } from './kind-map.js';
import { checkSizeForKind, checkVendorConfig, checkVnicCount } from './kind-rules.js';
import type { KindId } from './kinds.js';
import { kindScope, resolveKind } from './resolve-kind.js';
import { sizeOfferedIssue } from './select-image.js';

export interface OrderImageFacts {
  vendor: string;
  product: string;
  /** The image's sizes from the catalog; when given, the order's size must be one of them. */
  availableSizes?: readonly string[];
}

export interface OrderCheck {
  ok: boolean;
  kind?: KindId;
  errors: Issue[];
}

export function checkOrderObject(
  order: unknown,
  image: OrderImageFacts,
  options: { kindMap?: KindMap } = {},
): OrderCheck {
  if (!isRecord(order)) return { ok: false, errors: [issue('order', 'type', 'the order must be a JSON object')] };
  const parsed = orderObjectSchema.safeParse(order);
  const errors: Issue[] = parsed.success ? [] : issuesFromZod(parsed.error, order);
  const vendorConfig = order['vendorConfig'];
  if (!isRecord(vendorConfig)) return { ok: false, errors };

  const size = orderSize(vendorConfig, errors);
  const scope = kindScope(image, options.kindMap ?? DEFAULT_KIND_MAP, 'vendorConfig.imageId');
  if (!scope.ok) return { ok: false, errors: [...errors, scope.issue] };

  const vnics = vnicsSchema.safeParse(order['vnics']);
  const resolution = resolveKind(
    {
      config: vendorConfig,
      ...(size ? { size: size.label, sizePath: size.path } : {}),
      ...(vnics.success ? { vnicCount: vnics.data.length } : {}),
    },
    scope.value,
  );
  if (!resolution.ok) return { ok: false, errors: [...errors, ...resolution.issues] };
  const kind = resolution.kind;
  errors.push(...checkVendorConfig(kind, vendorConfig, 'order'));
  if (vnics.success) errors.push(...checkVnicCount(kind, vnics.data.length));
  if (size) {
    errors.push(...checkSizeForKind(kind, size.label, size.path));
    const notOffered = image.availableSizes ? sizeOfferedIssue(image.availableSizes, size.label, size.path) : null;
    if (notOffered) errors.push(notOffered);
  }
  return { ok: errors.length === 0, kind, errors };
}

/** The size an order asks for: mveLabel, or the legacy productSize translated; both must agree. */
function orderSize(
  vendorConfig: Record<string, unknown>,
  errors: Issue[],
): { label: string; path: string } | undefined {
  const label =
    typeof vendorConfig['mveLabel'] === 'string' && SIZE_LABEL_PATTERN.test(vendorConfig['mveLabel'])
      ? vendorConfig['mveLabel']
      : undefined;
  const legacy = vendorConfig['productSize'];
  const translated = typeof legacy === 'string' && isLegacySize(legacy) ? LEGACY_SIZE_LABELS[legacy] : undefined;
  if (label !== undefined && translated !== undefined && label !== translated) {
    errors.push(
      issue(
        'vendorConfig.productSize',
        'size-conflict',
        `productSize ${String(legacy)} means "${translated}" but mveLabel is "${label}"`,
      ),
    );
  }
  if (label !== undefined) return { label, path: 'vendorConfig.mveLabel' };
  return translated === undefined ? undefined : { label: translated, path: 'vendorConfig.productSize' };
}
