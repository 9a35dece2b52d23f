/**
 * Where the console may send a browser once it is signed in: the `next` of `/sign-in?next=…` and of the sign-in
 * forms. Only a path on the console's own origin; anything else falls back to `/`, so the console is never an open
 * redirect and never puts a header-breaking value into `Location`.
 */

/** A stand-in origin to resolve `next` against: whatever `next` is, it must leave this origin as it is. */
const PROBE_ORIGIN = 'http://x.invalid';

/** Longer than any page of the console; a `next` this long is not one of its links. */
const MAX_LENGTH = 2048;

/**
 * Printable ASCII without space or backslash. Browsers strip tab, CR and LF anywhere in a URL (so `/\t/evil` is
 * `//evil`) and read `\` as `/`; a control character would break the `Location` header, and anything above ASCII
 * cannot be in a header at all.
 */
const PATH_CHARACTERS = /^[\x21-\x5b\x5d-\x7e]*$/;

/**
 * `next` when it is a same-origin path (`/orders/CHG-1?x=1`), else `/`. The value is judged as it is (the query
 * string is already decoded once) and once more percent-decoded, so `%2F%2Fevil` or `%09` hidden one level down
 * are refused too. Refused: anything not a string or not starting with `/`; control characters, whitespace,
 * backslashes or non-ASCII; `//` at the start (a scheme-relative URL); and anything that, resolved against an
 * origin, leaves it or lands on a path starting with `//`.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > MAX_LENGTH) return '/';
  const decoded = percentDecoded(next);
  if (decoded === undefined) return '/';
  return isSameOriginPath(next) && isSameOriginPath(decoded) ? next : '/';
}

function isSameOriginPath(value: string): boolean {
  if (!value.startsWith('/') || value.startsWith('//') || !PATH_CHARACTERS.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value, PROBE_ORIGIN);
  } catch {
    return false;
  }
  return url.origin === PROBE_ORIGIN && !url.pathname.startsWith('//');
}

function percentDecoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
