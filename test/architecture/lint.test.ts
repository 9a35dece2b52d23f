/**
 * The lint (`eslint.config.js`) refuses what the folders' rules forbid: workflow code importing any of Node's built-in
 * modules, and a function too long to hold on one screen. Each source is linted as if it were a file of the project
 * (ESLint's `lintText` at the path of a file it has: the project's type-aware parser knows only its own files), so the
 * project is never edited to show it.
 */
import test from 'ava';
import { ESLint } from 'eslint';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The rules that `source` breaks when it is the file at `file` (relative to the project), with their messages. */
async function findings(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`);
}

/** A function of `lines` statements. */
function functionOf(lines: number): string {
  const body = Array.from({ length: lines }, (_, index) => `  total += ${index};`).join('\n');
  return `export function long(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

for (const [name, specifier] of [
  ['a bare name', 'events'],
  ['a sub-path', 'fs/promises'],
  ['the node: prefix', 'node:crypto'],
  ['a name that is also a folder of ours', 'domain'],
] as const) {
  test(`workflow code importing a Node built-in by ${name} fails the lint`, async (t) => {
    const found = await findings(
      'workflows/index.ts',
      `import * as built from '${specifier}';\nexport const x = built;\n`,
    );
    t.true(
      found.some((line) => line.startsWith('no-restricted-imports:') && line.includes('uses none of Node')),
      found.join('\n'),
    );
  });
}

test('the same import outside workflow code passes', async (t) => {
  t.deepEqual(
    await findings('worker/index.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n"),
    [],
  );
});

test('a function over 80 lines of code fails the lint; 80 pass', async (t) => {
  // With its opening, the `let`, the `return` and the closing brace, 76 statements make 80 lines.
  t.deepEqual(await findings('domain/index.ts', functionOf(76)), []);
  const found = await findings('domain/index.ts', functionOf(77));
  t.true(
    found.some((line) => line.startsWith('max-lines-per-function:') && line.includes('(81)')),
    found.join('\n'),
  );
});

test('a test may run to 120 lines', async (t) => {
  t.deepEqual(await findings('test/architecture/lint.test.ts', functionOf(116)), []);
  t.true(
    (await findings('test/architecture/lint.test.ts', functionOf(117))).some((line) =>
      line.startsWith('max-lines-per-function:'),
    ),
  );
});
