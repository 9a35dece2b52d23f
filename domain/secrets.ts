/**
 * Which vendorConfig fields are secret, and redaction for logs and records. A field the kinds table marks
 * secret is secret; a field it does not know is treated as secret too, since we cannot tell.
 */
import { isRecord } from './json.js';
import { APPLIANCE_KINDS, COMMON_VENDOR_FIELDS, KIND_IDS } from './kinds.js';

export const REDACTED = '[redacted]';

const KNOWN_FIELDS = new Map<string, boolean>();
for (const kind of KIND_IDS) {
  for (const field of APPLIANCE_KINDS[kind].fields) {
    // A name secret in any kind is secret everywhere (e.g. licenseData).
    KNOWN_FIELDS.set(field.name, (KNOWN_FIELDS.get(field.name) ?? false) || field.secret);
  }
}
for (const name of COMMON_VENDOR_FIELDS) KNOWN_FIELDS.set(name, false);

/** Names that look like credentials, for fields outside the kinds table. */
const SECRET_NAME = /pass|secret|key|token|licen[cs]e|cloud.?init|hash|code|credential|auth/i;

export function isSecretField(name: string): boolean {
  return KNOWN_FIELDS.get(name) ?? SECRET_NAME.test(name);
}

/** A copy with every secret (and every unknown) field's value replaced by REDACTED. */
export function redactVendorConfig(config: Record<string, unknown>): Record<string, unknown> {
  const redacted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(config)) {
    redacted[name] = KNOWN_FIELDS.get(name) === false ? value : REDACTED;
  }
  return redacted;
}

/**
 * A copy of an order request — or an order object, validate body or buy envelope — with every
 * `vendorConfig` inside it redacted. Anything else passes through unchanged.
 */
export function redactOrderRequest<T>(document: T): T {
  return redactDeep(document) as T;
}

function redactDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactDeep);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] = key === 'vendorConfig' && isRecord(inner) ? redactVendorConfig(inner) : redactDeep(inner);
  }
  return copy;
}
