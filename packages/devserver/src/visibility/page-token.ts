/**
 * List page tokens: the list-order key of the last row shown, so the next page is read from there (no page redoes
 * the ones before it), as the real server's SQL visibility pages by (close time, start time, run id).
 */
import { invalidArgument } from '../errors.js';
import type { ListOrderKey } from './query.js';

export function encodePageToken({ closeTime, startTime, runId }: ListOrderKey): Buffer {
  return Buffer.from(JSON.stringify([closeTime ?? null, startTime, runId]));
}

/** The key the page starts after; undefined for the first page. INVALID_ARGUMENT for a token this server did not issue. */
export function decodePageToken(token: Uint8Array | null | undefined): ListOrderKey | undefined {
  if (!token?.length) return undefined;
  const key = parseJson(Buffer.from(token).toString('utf8'));
  if (!Array.isArray(key) || key.length !== 3) throw notIssued();
  const [closeTime, startTime, runId] = key as unknown[];
  if (
    (closeTime !== null && typeof closeTime !== 'number') ||
    typeof startTime !== 'number' ||
    typeof runId !== 'string'
  )
    throw notIssued();
  return { closeTime: closeTime ?? undefined, startTime, runId };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw notIssued();
  }
}

const notIssued = () => invalidArgument('nextPageToken is not one this server issued');
