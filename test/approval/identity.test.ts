import test from 'ava';
import fc from 'fast-check';
import {
  findPerson,
  identityKey,
  identitySkeleton,
  lookAlikeIdentities,
  personNameProblem,
  quotedName,
  sameIdentity,
} from '../../domain/approval/index.js';

/** fiona written with a Cyrillic і (U+0456), which looks like the Latin i. */
const CYRILLIC_FIONA = 'f\u0456ona';
const FULLWIDTH_FIONA = '\uff46\uff49\uff4f\uff4e\uff41';
const directory = [{ id: 'fiona' }, { id: 'dave' }, { id: 'alice' }, { id: 'erin' }];

test('the identity key is trimmed, NFKC and lower-cased: case, width and ligatures are not identity', (t) => {
  for (const name of ['fiona', 'Fiona', 'FIONA', '  fiona ', FULLWIDTH_FIONA, '\ufb01ona']) {
    t.is(identityKey(name), 'fiona', quotedName(name));
    t.true(sameIdentity(name, 'fiona'), quotedName(name));
  }
});

test('look-alike letters, invisible characters and bidi controls are not the same person', (t) => {
  for (const name of [CYRILLIC_FIONA, 'fi\u03bfna', 'fiona\u200b', '\u200dfiona', 'fi\u202eona', 'fiona@example.com']) {
    t.false(sameIdentity(name, 'fiona'), quotedName(name));
  }
});

test('the skeleton folds look-alikes from other scripts and drops invisible characters', (t) => {
  for (const name of [
    'fiona',
    'Fiona',
    FULLWIDTH_FIONA,
    CYRILLIC_FIONA,
    'F\u0406ONA',
    'fi\u03bfna',
    'fiona\u200b',
    'fi\u00adona',
  ]) {
    t.is(identitySkeleton(name), 'fiona', quotedName(name));
  }
  t.not(identitySkeleton('fiona@example.com'), identitySkeleton('fiona'));
});

test('look-alike identities: the same person, or a name that only looks like theirs', (t) => {
  for (const name of ['Fiona', 'fiona', FULLWIDTH_FIONA, CYRILLIC_FIONA, 'fiona\u200b', 'fi\u202eona']) {
    t.true(lookAlikeIdentities('fiona', name), quotedName(name));
    t.true(lookAlikeIdentities(name, 'fiona'), quotedName(name));
  }
  t.false(lookAlikeIdentities('fiona', 'fiona@example.com'));
  t.false(lookAlikeIdentities('fiona', 'dave'));
});

test('two plain-ASCII names are compared as before, by key: ASCII names that resemble each other are different people', (t) => {
  // The confusables data maps m to rn and 1 to l; directory ids are ASCII, and mike and rnike are two people.
  t.is(identitySkeleton('mike'), identitySkeleton('rnike'));
  t.false(lookAlikeIdentities('mike', 'rnike'));
  t.false(lookAlikeIdentities('bill', 'bi11'));
  t.true(lookAlikeIdentities('MIKE', 'mike'));
});

test('property: for printable ASCII, look-alike identity is exactly the old rule (trimmed, case-insensitive)', (t) => {
  const ascii = fc.string({ unit: fc.constantFrom(...' abcdefghilmnorIL01-._@'.split('')), maxLength: 8 });
  fc.assert(
    fc.property(ascii, ascii, (a, b) => {
      const before = a.trim().toLowerCase() === b.trim().toLowerCase();
      return sameIdentity(a, b) === before && lookAlikeIdentities(a, b) === before;
    }),
  );
  t.pass();
});

test("a person's name is refused when blank or carrying control, format or other invisible characters", (t) => {
  const refused: Array<[string, RegExp]> = [
    ['', /blank/],
    ['   ', /blank/],
    ['fiona\u200b', /U\+200B, an invisible format character/],
    ['fi\u200dona', /U\+200D/],
    ['\u202efiona', /U\+202E, an invisible format character \(zero-width or bidi control\)/],
    ['fiona\u2066', /U\+2066/],
    ['fi\u00adona', /U\+00AD/],
    ['fiona\u0000', /U\+0000, a control character/],
    ['fi\tona', /U\+0009, a control character/],
    ['fiona\u2028', /U\+2028, a line or paragraph separator/],
    ['fiona\u3164', /U\+3164, an invisible character/],
    ['fiona\ufe0f', /U\+FE0F/],
  ];
  for (const [name, problem] of refused) t.regex(personNameProblem(name) ?? '(accepted)', problem, quotedName(name));
  for (const name of ['fiona', ' fiona ', 'Fiona Finance', 'fiona@example.com', 'José', CYRILLIC_FIONA]) {
    t.is(personNameProblem(name), undefined, quotedName(name));
  }
});

test('findPerson resolves a name to the directory id of the same person, whatever its case or width', (t) => {
  for (const name of ['fiona', 'FIONA', 'Fiona', ' fiona ', FULLWIDTH_FIONA]) {
    t.deepEqual(findPerson(directory, name), { ok: true, person: { id: 'fiona' } }, quotedName(name));
  }
});

test('findPerson refuses an unknown name, a look-alike of a directory id and a name with invisible characters', (t) => {
  const refusals: Array<[string, 'invalid-name' | 'look-alike' | 'unknown', RegExp]> = [
    ['fiona@example.com', 'unknown', /^is not a person in the directory$/],
    ['mallory', 'unknown', /^is not a person in the directory$/],
    [CYRILLIC_FIONA, 'look-alike', /only a look-alike of one \(U\+0456 merely resembles/],
    ['fi\u03bfn\u0430', 'look-alike', /U\+03BF, U\+0430 merely resemble/],
    ['fiona\u200b', 'invalid-name', /U\+200B/],
    ['fi\u202eona', 'invalid-name', /bidi/],
    ['', 'invalid-name', /blank/],
  ];
  for (const [name, rule, problem] of refusals) {
    const match = findPerson(directory, name);
    t.false(match.ok, quotedName(name));
    if (match.ok) continue;
    t.is(match.rule, rule, quotedName(name));
    t.regex(match.problem, problem, quotedName(name));
  }
});

test('findPerson takes the exact spelling when two directory ids differ only in case, and refuses a guess', (t) => {
  const twins = [{ id: 'Sam' }, { id: 'sam' }];
  t.deepEqual(findPerson(twins, 'sam'), { ok: true, person: { id: 'sam' } });
  t.deepEqual(findPerson(twins, 'Sam'), { ok: true, person: { id: 'Sam' } });
  const guess = findPerson(twins, 'SAM');
  t.like(guess, { ok: false, rule: 'ambiguous' });
});

test('names are quoted in messages with every character outside printable ASCII escaped', (t) => {
  t.is(quotedName('fiona\u200b'), '"fiona\\u200b"');
  t.is(quotedName(CYRILLIC_FIONA), '"f\\u0456ona"');
  t.is(quotedName('say "hi"'), '"say \\"hi\\""');
  t.is(quotedName('\u{1d41f}'), '"\\u{1d41f}"');
});
