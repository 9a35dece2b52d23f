/** Lengths and character sets: each checker returns a problem sentence, or null when the value fits. */

/** Lengths count Unicode code points, so "é" is one character whatever its UTF-16 size. */
export function characterCount(value: string): number {
  return [...value].length;
}

export function lengthProblem(value: string, min: number, max?: number): string | null {
  const count = characterCount(value);
  if (count < min || (max !== undefined && count > max)) {
    const range = max === undefined ? `at least ${min}` : min === max ? `exactly ${min}` : `${min} to ${max}`;
    return `must be ${range} characters long, not ${count}`;
  }
  return null;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

export function hasControlCharacters(value: string): boolean {
  return CONTROL.test(value);
}

/** Names a forbidden character without echoing the value around it. */
export function forbiddenCharacterProblem(value: string, forbidden: readonly string[]): string | null {
  const found = forbidden.find((character) => value.includes(character));
  return found === undefined ? null : `must not contain ${describeCharacter(found)}`;
}

function describeCharacter(character: string): string {
  switch (character) {
    case '"':
      return 'the double-quote character (")';
    case '\r':
      return 'a carriage return';
    case '\n':
      return 'a line feed';
    default:
      return `the character U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }
}
