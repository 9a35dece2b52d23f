import { redactVendorConfig } from '../../domain/index.js';

/**
 * Callers redact before recording; this is the backstop. Returns the path of the first `vendorConfig`
 * field that the domain's redaction would have changed (a secret left in clear), or null. Names the
 * field, never the value.
 */
export function unredactedSecretPath(value: unknown, path: string): string | null {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unredactedSecretPath(item, `${path}.${index}`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'vendorConfig' && typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      const redacted = redactVendorConfig(inner as Record<string, unknown>);
      const leaked = Object.keys(redacted).find(
        (field) => redacted[field] !== (inner as Record<string, unknown>)[field],
      );
      if (leaked) return `${path}.vendorConfig.${leaked}`;
    } else {
      const found = unredactedSecretPath(inner, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}
