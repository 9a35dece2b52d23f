/**
 * safeNext: where the console may send a browser after sign-in. Only a path on the console's own origin;
 * anything a browser could read as another host, and anything that cannot be a header value, is `/`.
 */
import test from 'ava';
import { safeNext } from '../../client/console/safe-next.js';

test('same-origin paths are kept as given', (t) => {
  for (const next of [
    '/',
    '/ok?x=1',
    '/orders/CHG-1',
    '/orders/A%2FB',
    '/ops?status=FAILED&requester=alice+smith',
    '/orders/CHG-1#votes',
  ])
    t.is(safeNext(next), next, next);
});

test('a tab, CR or LF anywhere is refused: browsers strip them, so /\\t/host is //host', (t) => {
  // As the query string arrives decoded: /%09/host is "/\t/host", /%0a/x is "/\n/x".
  for (const next of ['/\t/host', '/\n/x', '/\r/x', '/\r\n/x', '\t//host', '/ok\t', '/ /host', '/\f/x', '/\u0000/x'])
    t.is(safeNext(next), '/', JSON.stringify(next));
});

test('encoded one level deeper is refused too: /%09/host, /%0a/x, /%2F%2Fhost, /%5Chost', (t) => {
  for (const next of ['/%09/host', '/%0a/x', '/%0D%0Aset-cookie:x=1', '/%2F%2Fhost', '/%2F/host', '/%5Chost', '/%ZZ'])
    t.is(safeNext(next), '/', next);
});

test('backslashes, scheme-relative and absolute URLs are refused', (t) => {
  for (const next of [
    '/\\host',
    '\\\\host',
    '/\\/host',
    '//host',
    '///host',
    '//host/path',
    'https://evil',
    'http://x.invalid/ok',
    'javascript:alert(1)',
    'ok',
    '',
    '/..//host',
    '/.//host',
  ])
    t.is(safeNext(next), '/', next);
});

test('non-ASCII (which no header may carry), over-long and non-string values are refused', (t) => {
  t.is(safeNext('/caf\u00e9'), '/');
  t.is(safeNext('/\u2603'), '/');
  t.is(safeNext('/\u3000/host'), '/', 'an ideographic space');
  t.is(safeNext(`/${'a'.repeat(3000)}`), '/');
  t.is(safeNext(undefined), '/');
  t.is(safeNext(['/a', '/b']), '/', 'next given twice');
  t.is(safeNext(42), '/');
});
