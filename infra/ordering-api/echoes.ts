/**
 * A provider may quote a request's values back in its error messages ("adminPassword: 'hunter2' is too short"). Two
 * rules keep the secrets of our requests out of what its errors become (lastError, logs, records, history):
 *
 * 1. Every secret value we sent is replaced wherever it appears, as sent, as it reads escaped in JSON text, and, for a
 *    value of several lines (a licence file, cloud-init), each of its lines of 8 characters or more: an API may quote
 *    just the line it objects to.
 * 2. A quoted value is replaced in any clause (text between `;` or line breaks) that names a secret field, since an API
 *    may quote a value cut short or changed, which rule 1 cannot recognise.
 *
 * The secret fields are the domain's (`redactVendorConfig`): what it hides in the records is hidden here too.
 */
import { isRecord, isSecretField, REDACTED, redactVendorConfig } from '../../domain/index.js';

const MIN_LINE_LENGTH = 8;

/** The secret values of a request body to look for in what the provider answers, longest first. */
export function secretValuesOf(body: unknown): string[] {
  const found = new Set<string>();
  collectSecrets(body, found);
  return [...found].sort((a, b) => b.length - a.length);
}

function collectSecrets(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, found);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key !== 'vendorConfig' || !isRecord(inner)) {
      collectSecrets(inner, found);
      continue;
    }
    // The fields the records hide are the secrets: those whose value redaction changes.
    const redacted = redactVendorConfig(inner);
    for (const [name, field] of Object.entries(inner)) {
      if (redacted[name] === field) continue;
      for (const form of stringsOf(field).flatMap(formsOf)) found.add(form);
    }
  }
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  return isRecord(value) ? Object.values(value).flatMap(stringsOf) : [];
}

/** How a secret may read in an answer: as it is, escaped in JSON text, and line by line. */
function formsOf(secret: string): string[] {
  if (secret === '') return [];
  const lines = secret
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_LINE_LENGTH);
  return [secret, JSON.stringify(secret).slice(1, -1), ...(lines.length > 1 ? lines : [])];
}

/** Quoted text: double, back or typographic quotes, or single quotes that are not apostrophes (escapes included). */
const QUOTED = /"(?:\\.|[^"\\])*"|`[^`]*`|“[^”]*”|‘[^’]*’|(?<![\p{L}\p{N}])'[^']*'(?![\p{L}\p{N}])/gu;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;

/** `text` with the request's secrets and the quoted values of clauses naming a secret field replaced. */
export function redactEchoes(text: string, secrets: readonly string[]): string {
  const withoutValues = secrets.reduce(
    (redacted, secret) => (secret ? redacted.replaceAll(secret, REDACTED) : redacted),
    text,
  );
  return withoutValues.replace(/[^;\n]+/g, (clause) =>
    namesSecretField(clause) ? clause.replace(QUOTED, (quoted) => `${quoted[0]}${REDACTED}${quoted.at(-1)}`) : clause,
  );
}

function namesSecretField(clause: string): boolean {
  return (clause.match(WORD) ?? []).some(isSecretField);
}
