import unhomoglyph from 'unhomoglyph';

/**
 * Who a name is. People's names come from different sources (the directory, an identity provider, a ticket system),
 * so they are matched strictly, in three forms:
 *
 * - the **identity key** (`identityKey`): trimmed, Unicode NFKC, lower-cased (`Fiona`, `FIONA` and fullwidth `ｆｉｏｎａ`
 *   are all `fiona`). Two names are the same person exactly when their keys are equal (`sameIdentity`): that is how
 *   a name is looked up in the directory and how a caller is matched to their own orders.
 * - the **skeleton** (`identitySkeleton`): the key put through the Unicode confusables mapping of UTS #39 (after NFD,
 *   without default-ignorable characters such as zero-width spaces), so `fіona` with a Cyrillic і and `fiona` with a
 *   zero-width space have the skeleton of `fiona`. A skeleton only says that two names look alike; it never makes
 *   one name stand for a person (a look-alike of a directory name is refused, not resolved to it).
 * - a name a person can have (`personNameProblem`): not blank, and without control, format (zero-width, bidi) or
 *   other invisible characters.
 *
 * Pure and deterministic, without Node APIs: the order workflow uses it (the vote rules) inside its sandbox.
 */

/** Characters no person's name may carry: controls, format characters (zero-width, bidi), separators, invisibles. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** Printable ASCII only: such names are compared as they always were (by key), never by skeleton. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** The form two names are compared in to tell whether they are the same person: trimmed, NFKC, lower-cased. */
export function identityKey(name: string): string {
  return name.trim().normalize('NFKC').toLowerCase().normalize('NFKC');
}

/** The same person: equal identity keys (case and compatibility forms such as fullwidth letters aside). */
export function sameIdentity(a: string, b: string): boolean {
  return identityKey(a) === identityKey(b);
}

/**
 * The UTS #39 skeleton of the name's identity key: NFD, default-ignorable characters removed, each character
 * replaced by its prototype from Unicode's confusables data, NFD again. Meant only for comparing, never for showing.
 */
export function identitySkeleton(name: string): string {
  const decomposed = identityKey(name).normalize('NFD').replace(DEFAULT_IGNORABLE, '');
  return unhomoglyph(decomposed).normalize('NFD');
}

/**
 * Could one take `a` and `b` for the same person? True for the same person, and for names that differ only by
 * look-alike characters from another script (`fіona` with a Cyrillic і), invisible characters or compatibility
 * forms. Two plain-ASCII names are compared by their keys alone: the directory's ids are ASCII, and ASCII names that
 * merely resemble each other (`rn` and `m`, `l` and `1`) belong to different people.
 */
export function lookAlikeIdentities(a: string, b: string): boolean {
  if (sameIdentity(a, b)) return true;
  if (PLAIN_ASCII.test(a) && PLAIN_ASCII.test(b)) return false;
  return identitySkeleton(a) === identitySkeleton(b);
}

/** Why `name` cannot be a person's name (blank, or carrying an invisible or control character); undefined when it can. */
export function personNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is blank; it must name a person';
  const found = INVISIBLE.exec(name);
  if (!found) return undefined;
  return (
    `contains ${codePoint(found[0])}, ${characterKind(found[0])}; a person's name may not carry zero-width, ` +
    'bidi-control or other control or format characters'
  );
}

/** `U+0456`: how a character is named in messages (never the raw character, which may be invisible). */
export function codePoint(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The name as a JSON string, with every character outside printable ASCII written as its escape (`"fiona\u200b"`). */
export function quotedName(name: string): string {
  let quoted = '';
  for (const character of name) {
    if (PLAIN_ASCII.test(character)) quoted += character === '"' || character === '\\' ? `\\${character}` : character;
    else if (character.length === 2) quoted += `\\u{${character.codePointAt(0)!.toString(16)}}`;
    else quoted += `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
  return `"${quoted}"`;
}

function characterKind(character: string): string {
  if (/\p{Cc}/u.test(character)) return 'a control character';
  if (/\p{Cf}/u.test(character)) return 'an invisible format character (zero-width or bidi control)';
  if (/[\p{Zl}\p{Zp}]/u.test(character)) return 'a line or paragraph separator';
  if (/\p{Cs}/u.test(character)) return 'half of a broken character (a lone surrogate)';
  return 'an invisible character';
}

/** The directory's person a name resolves to, or why it resolves to no one. */
export type PersonMatch<P extends { id: string }> =
  | { ok: true; person: P }
  | { ok: false; rule: 'invalid-name' | 'look-alike' | 'ambiguous' | 'unknown'; problem: string };

/**
 * Resolves a name to the person of `directory` it names: the one whose id is the same identity (`sameIdentity`).
 * Refused, with the rule and a sentence saying why: a name with invisible or control characters, a name that only
 * looks like a directory id (another script's look-alike letters), a name two ids share, and an unknown name.
 */
export function findPerson<P extends { id: string }>(directory: readonly P[], name: string): PersonMatch<P> {
  const problem = personNameProblem(name);
  if (problem) return { ok: false, rule: 'invalid-name', problem };
  const same = directory.filter((person) => sameIdentity(person.id, name));
  const exact = same.length > 1 ? same.filter((person) => person.id === name.trim()) : same;
  if (exact.length === 1) return { ok: true, person: exact[0] };
  if (same.length > 1) {
    return {
      ok: false,
      rule: 'ambiguous',
      problem: `names ${same.length} people of the directory who differ only in case; use the directory's exact spelling`,
    };
  }
  const skeleton = identitySkeleton(name);
  if (directory.some((person) => identitySkeleton(person.id) === skeleton)) {
    const foreign = [...new Set([...name.trim().normalize('NFKC')].filter((c) => !PLAIN_ASCII.test(c)))];
    const which =
      foreign.length === 0
        ? 'its characters merely resemble'
        : `${foreign.map(codePoint).join(', ')} merely ${foreign.length === 1 ? 'resembles' : 'resemble'}`;
    return {
      ok: false,
      rule: 'look-alike',
      problem:
        `is not a person in the directory, only a look-alike of one (${which} the letters of a directory id); ` +
        "names that look alike are never matched: use the directory's spelling",
    };
  }
  return { ok: false, rule: 'unknown', problem: 'is not a person in the directory' };
}
