/** Task tokens: opaque to workers, they name the run, the task and its attempt so stale answers are refused. */
import { invalidArgument } from '../errors.js';

export type TaskToken =
  /** `startedTime` tells apart two speculative tasks with the same scheduled event id (the first one dropped). */
  | { kind: 'workflow'; runId: string; scheduledEventId: number; attempt: number; startedTime?: number }
  | { kind: 'activity'; runId: string; scheduledEventId: number; attempt: number }
  | { kind: 'query'; queryId: string };

export function encodeToken(token: TaskToken): Buffer {
  return Buffer.from(JSON.stringify(token));
}

export function decodeToken(bytes: Uint8Array | null | undefined): TaskToken {
  try {
    const token = JSON.parse(Buffer.from(bytes ?? []).toString('utf8')) as TaskToken;
    if (token && typeof token === 'object' && typeof token.kind === 'string') return token;
  } catch {
    // fall through
  }
  throw invalidArgument('taskToken is not a token this server issued');
}
