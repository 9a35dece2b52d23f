/**
 * The request's size: `size` (an mveLabel) or the deprecated legacy `productSize`, translated with a
 * warning. Both given and disagreeing is an error; agreeing, only the deprecation warning.
 */
import { LEGACY_SIZE_LABELS, isDocumentedSize, legacySizeSchema, sizeLabelSchema } from '../schemas/index.js';
import { issue, type Issue } from './issues.js';

export interface ResolvedSize {
  /** The mveLabel to order, when one can be told. */
  label?: string;
  /** The request field the label came from, for error paths. */
  path: 'size' | 'productSize';
  errors: Issue[];
  warnings: Issue[];
}

export function resolveRequestSize(rawSize: unknown, rawProductSize: unknown): ResolvedSize {
  const size = sizeLabelSchema.safeParse(rawSize);
  const legacy = legacySizeSchema.safeParse(rawProductSize);
  const label = size.success ? size.data : undefined;
  const translated = legacy.success ? LEGACY_SIZE_LABELS[legacy.data] : undefined;
  const result: ResolvedSize = { path: 'size', errors: [], warnings: [] };
  if (translated !== undefined) {
    result.warnings.push(
      issue(
        'productSize',
        'product-size-deprecated',
        `productSize is deprecated: ${legacy.data} means "${translated}"; write "size": "${translated}" instead`,
      ),
    );
  }
  if (label !== undefined && translated !== undefined && label !== translated) {
    result.errors.push(
      issue(
        'productSize',
        'size-conflict',
        `productSize ${legacy.data} means "${translated}" but size is "${label}"; give only size`,
      ),
    );
    return result;
  }
  result.label = label ?? translated;
  if (label === undefined && translated !== undefined) result.path = 'productSize';
  return result;
}

/** A label outside the documented five may still be offered by a catalog; offline we can only warn. */
export function undocumentedSizeWarning(label: string, path: string): Issue | null {
  return isDocumentedSize(label)
    ? null
    : issue(
        path,
        'size-undocumented',
        `size "${label}" is not one of the documented sizes; check it against the images catalog (--images)`,
      );
}
