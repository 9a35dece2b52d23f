import test from 'ava';
import { csvCell, csvText } from '../../client/http/csv.js';

test('cells are quoted as RFC 4180 says, and text that begins like a formula stays text', (t) => {
  t.is(csvCell('plain'), 'plain');
  t.is(csvCell('a,b'), '"a,b"');
  t.is(csvCell('say "hi"'), '"say ""hi"""');
  t.is(csvCell('two\nlines'), '"two\nlines"');
  t.is(csvCell(null), '');
  t.is(csvCell(12), '12');
  t.is(csvCell('=HYPERLINK("x")', 'text'), `"'=HYPERLINK(""x"")"`);
  t.is(csvCell('-0.01'), '-0.01', 'an amount is a value, never escaped');
  t.is(csvCell('@team', 'text'), "'@team");
  t.is(csvText(['a', 'b'], [['1', '2']]), 'a,b\r\n1,2\r\n');
});
