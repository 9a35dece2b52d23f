/** The documented request schema keeps up with the kinds table and the default kind map. */
import { readFileSync } from 'node:fs';
import test from 'ava';
import { APPLIANCE_KINDS, DEFAULT_KIND_MAP, KIND_IDS } from '../../domain/index.js';

const doc = readFileSync(new URL('../../docs/order-request.md', import.meta.url), 'utf8');

test('docs/order-request.md names every kind and every field of every kind', (t) => {
  for (const kind of KIND_IDS) {
    t.regex(doc, new RegExp(`^\\| ${kind} \\|`, 'm'), kind);
    for (const field of APPLIANCE_KINDS[kind].fields)
      t.true(doc.includes(`\`${field.name}\``), `${kind}.${field.name}`);
  }
});

test('docs/order-request.md lists every default kind-map entry', (t) => {
  for (const entry of DEFAULT_KIND_MAP) {
    t.true(
      doc.includes(`| ${entry.vendor} | ${entry.product} | ${entry.kinds.join(', ')} |`),
      `${entry.vendor} / ${entry.product}`,
    );
  }
});
