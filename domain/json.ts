/** A JSON object (not null, not an array): what request documents and vendorConfig must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
