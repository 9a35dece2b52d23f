import { readFile } from 'node:fs/promises';
import { checkOrderRequest, type Issue, type KindMap, type RequestCheck } from '../../../domain/index.js';
import { kindMapFromEnv, loadKindMap } from '../../../infra/catalog/index.js';
import { z } from 'zod';
import {
  imageGroupSchema,
  imagesResponseSchema,
  locationsResponseSchema,
  type ImageGroup,
  type Location,
} from '../../../schemas/index.js';

export interface CheckOptions {
  images?: string;
  locations?: string;
  kindMap?: string;
  json?: boolean;
}

/** Input the command cannot work with (unreadable, not JSON, not a catalog body): exit code 2. */
class UnusableInput extends Error {}

/** Checks the request in `file` (with the catalogs and kind map the options name); the exit code. */
export async function checkRequestFile(file: string, options: CheckOptions): Promise<number> {
  try {
    const request = await readJson(file, 'order request');
    const checkOptions = {
      kindMap: readKindMap(options.kindMap),
      ...(options.images ? { images: await readImages(options.images) } : {}),
      ...(options.locations ? { locations: await readLocations(options.locations) } : {}),
    };
    const result = checkOrderRequest(request, checkOptions);
    process.stdout.write(options.json ? jsonReport(result) : humanReport(result));
    return result.ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof UnusableInput)) throw error;
    process.stderr.write(`mve-orders check: ${error.message}\n`);
    return 2;
  }
}

async function readJson(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UnusableInput(
      `cannot read the ${what} ${file === '-' ? 'from standard input' : file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the input around the fault, which could be a secret: only the position is kept.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new UnusableInput(
      `the ${what} ${file === '-' ? 'on standard input' : file} is not valid JSON${position ? ` (at character ${position})` : ''}`,
    );
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The images endpoint's body, or a bare array of image groups (what `mve-orders images --json` prints). */
async function readImages(file: string): Promise<ImageGroup[]> {
  const body = await readJson(file, 'images catalog');
  const parsed = Array.isArray(body)
    ? z.array(imageGroupSchema).safeParse(body)
    : imagesResponseSchema.transform((response) => response.data.mveImages).safeParse(body);
  if (!parsed.success)
    throw new UnusableInput(`${file} is not an images response body (${describeZod(parsed.error.issues)})`);
  return parsed.data;
}

async function readLocations(file: string): Promise<Location[]> {
  const parsed = locationsResponseSchema.safeParse(await readJson(file, 'locations catalog'));
  if (!parsed.success)
    throw new UnusableInput(`${file} is not a locations response body (${describeZod(parsed.error.issues)})`);
  return parsed.data;
}

function readKindMap(file: string | undefined): KindMap {
  try {
    return file ? loadKindMap(file) : kindMapFromEnv();
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
}

function describeZod(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 3)
    .map((entry) => `${entry.path.map(String).join('.') || '(body)'}: ${entry.message}`)
    .join('; ');
}

function jsonReport(result: RequestCheck): string {
  return `${JSON.stringify({ ok: result.ok, kind: result.kind ?? null, errors: result.errors, warnings: result.warnings }, null, 2)}\n`;
}

function humanReport(result: RequestCheck): string {
  const kind = result.kind ? ` (kind ${result.kind})` : '';
  const lines = [result.ok ? `valid${kind}` : `invalid${kind}: ${count(result.errors.length, 'error')}`];
  if (result.errors.length > 0) lines.push('errors:', ...result.errors.map(line));
  if (result.warnings.length > 0) lines.push('warnings:', ...result.warnings.map(line));
  return `${lines.join('\n')}\n`;
}

function line(entry: Issue): string {
  return `  ${entry.path}: ${entry.message}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
