/** The README as the walk-through reads it: its ```bash blocks, run as written, and its command table. */
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { COMMAND_MS, ENV, run, StepFailure } from './shell.js';

export interface BashBlock {
  /** README line of the block's first command. */
  firstLine: number;
  lines: string[];
  /** The first line of the paragraph before the fence, which says what the block is for. */
  lead: string;
}

/** Every ```bash block of the README, in order. */
export function bashBlocks(readme: string): BashBlock[] {
  const lines = readme.split('\n');
  const blocks: BashBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index].trim() !== '```bash') continue;
    const end = lines.findIndex((line, at) => at > index && line.trim() === '```');
    if (end === -1) throw new StepFailure(`README.md line ${index + 1}: a \`\`\`bash block that never ends`);
    blocks.push({ firstLine: index + 2, lines: lines.slice(index + 1, end), lead: paragraphBefore(lines, index) });
    index = end;
  }
  return blocks;
}

/** The first line of the paragraph just before line `index`. */
function paragraphBefore(lines: string[], index: number): string {
  let at = index - 1;
  while (at >= 0 && lines[at].trim() === '') at--;
  while (at > 0 && lines[at - 1].trim() !== '') at--;
  return at >= 0 ? lines[at].trim() : '';
}

/** The commands a README table's first column names (`approve` / `reject <order> …` names two). */
export function commandTable(readme: string, heading: string): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new StepFailure(`README.md has no "## ${heading}" section`);
  const names: string[] = [];
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split('|')[1] ?? '';
    for (const span of firstCell.matchAll(/`([a-z][a-z-]*)/g)) names.push(span[1]);
  }
  if (names.length === 0) throw new StepFailure(`README.md's "## ${heading}" table names no command`);
  return names;
}

export function blockLabel(block: BashBlock): string {
  const last = block.firstLine + block.lines.length - 1;
  const about = block.lead.length > 40 ? `${block.lead.slice(0, 40).trimEnd()}…` : block.lead;
  return `README lines ${block.firstLine}-${last} (${about})`;
}

/**
 * A folder whose `curl` is the real one with `--fail-with-body`, to put first on PATH: an HTTP error status fails
 * the command (a README line that got a 4xx goes no further), and its answer is still printed.
 */
export async function failingCurl(root: string): Promise<string> {
  const real = spawnSync('bash', ['-c', 'command -v curl'], { env: ENV, encoding: 'utf8' }).stdout.trim();
  const dir = path.join(root, 'bin');
  await mkdir(dir);
  await writeFile(path.join(dir, 'curl'), `#!/bin/sh\nexec ${JSON.stringify(real)} --fail-with-body "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}

/** Runs a README block as written, stopping at its first failing command and naming that command's line. */
export async function runBlock(block: BashBlock, cwd: string, curlDir: string): Promise<string> {
  const preamble = [
    'set -eo pipefail',
    `trap 'echo >&2; echo "walkthrough: README.md line $((LINENO + ${block.firstLine - 3})) failed (exit $?): $BASH_COMMAND" >&2' ERR`,
  ];
  const script = path.join(cwd, '..', `readme-${block.firstLine}.sh`);
  await writeFile(script, [...preamble, ...block.lines, ''].join('\n'));
  const env = { ...ENV, PATH: `${curlDir}${path.delimiter}${ENV['PATH'] ?? ''}` };
  const done = await run('bash', [script], cwd, COMMAND_MS, env);
  if (done.code !== 0) {
    const source = block.lines.map((line, at) => `  ${String(block.firstLine + at).padStart(4)}  ${line}`).join('\n');
    throw new StepFailure(`the README block exited ${done.code ?? done.signal}:\n${source}`, done.output);
  }
  return done.output;
}
