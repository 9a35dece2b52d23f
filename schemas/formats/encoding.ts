/** Hex digests, UUID v4 and base64: each checker returns a problem sentence, or null when the value fits. */

export type HexCase = 'lower' | 'any';

export function hexProblem(value: string, lengths: readonly number[], letterCase: HexCase = 'any'): string | null {
  const digits = letterCase === 'lower' ? /^[0-9a-f]*$/ : /^[0-9a-fA-F]*$/;
  const what = letterCase === 'lower' ? 'lowercase hexadecimal' : 'hexadecimal';
  if (!digits.test(value)) return `must contain only ${what} characters`;
  if (!lengths.includes(value.length)) {
    return `must be ${lengths.join(' or ')} ${what} characters, not ${value.length}`;
  }
  return null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuidV4Problem(value: string): string | null {
  if (!UUID.test(value)) return 'is not a UUID (8-4-4-4-12 hexadecimal digits)';
  if (value[14] !== '4') return 'is a UUID but not version 4';
  if (!/[89ab]/i.test(value[19]))
    return 'is a UUID but not of the RFC 4122 variant (version 4 needs 8, 9, a or b there)';
  return null;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard alphabet with padding; line breaks and other whitespace between characters are ignored. */
export function base64Problem(value: string): string | null {
  const compact = value.replace(/\s+/g, '');
  if (compact === '') return 'is empty; base64 content is expected';
  if (!BASE64.test(compact)) return 'is not valid base64 (standard alphabet A-Z a-z 0-9 + /, padded with =)';
  // Non-zero padding bits decode but do not round-trip: a sign of truncation or a copy-paste accident.
  if (Buffer.from(compact, 'base64').toString('base64') !== compact)
    return 'is not canonical base64 (stray bits at the end)';
  return null;
}
