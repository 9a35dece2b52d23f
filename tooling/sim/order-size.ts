/**
 * The size an order asks for (spec 2.4, 2.6): `mveLabel`, or the deprecated `productSize` that is still
 * accepted in its place. Given both, they must name the same size.
 */
import { pathOf, type SimIssue } from './issues.js';
import { LEGACY_SIZE_NAMES, readSizeLabel } from './sizes.js';

export interface OrderSize {
  label: string;
  /** The field the size was read from, for the path of any later issue about it. */
  path: string;
}

export function readOrderSize(
  vendorConfig: Record<string, unknown>,
  basePath: string,
): { size?: OrderSize; issues: SimIssue[] } {
  const labelPath = pathOf(basePath, 'mveLabel');
  const legacyPath = pathOf(basePath, 'productSize');
  const given = vendorConfig['mveLabel'];
  const legacy = vendorConfig['productSize'];
  const issues: SimIssue[] = [];

  let label: string | undefined;
  if (given !== undefined) {
    if (typeof given === 'string' && readSizeLabel(given)) label = given;
    else
      issues.push({
        path: labelPath,
        rule: 'format',
        message: 'mveLabel must be a size label "MVE <vCPU>/<GB>", e.g. "MVE 4/16"',
      });
  }
  let translated: string | undefined;
  if (legacy !== undefined) {
    translated = typeof legacy === 'string' ? LEGACY_SIZE_NAMES[legacy] : undefined;
    if (translated === undefined) {
      issues.push({
        path: legacyPath,
        rule: 'allowed-values',
        message: `productSize must be one of ${Object.keys(LEGACY_SIZE_NAMES).join(', ')}`,
      });
    }
  }
  if (given === undefined && legacy === undefined) {
    issues.push({ path: labelPath, rule: 'required', message: 'mveLabel is required (or the deprecated productSize)' });
  }
  if (label !== undefined && translated !== undefined && label !== translated) {
    issues.push({
      path: legacyPath,
      rule: 'size-conflict',
      message: `productSize means "${translated}" but mveLabel is "${label}"`,
    });
  }
  if (issues.length > 0) return { issues };
  return label !== undefined
    ? { size: { label, path: labelPath }, issues }
    : { size: { label: translated!, path: legacyPath }, issues };
}
