/**
 * Orders software version labels sensibly: numeric segments compare as numbers ("17.10" > "17.9"), text
 * segments alphabetically, and a release with a suffix after a shared prefix ("7.0.1-rc1") sorts before the
 * bare release ("7.0.1").
 */
export function compareVersions(a: string, b: string): number {
  const left = segments(a);
  const right = segments(b);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const x = left[index];
    const y = right[index];
    if (x === undefined) return typeof y === 'number' ? -1 : 1;
    if (y === undefined) return typeof x === 'number' ? 1 : -1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    if (typeof x === 'number') return 1;
    if (typeof y === 'number') return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function segments(version: string): Array<number | string> {
  return (version.toLowerCase().match(/\d+|[a-z]+/g) ?? []).map((part) => (/^\d/.test(part) ? Number(part) : part));
}
