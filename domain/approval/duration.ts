import { z } from 'zod';

/**
 * Durations in a policy file are written for people ("72h", "30m", "2d") or as plain milliseconds.
 * Parsed policies hold milliseconds only, so the workflow adds them to epoch-ms times with no parsing.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

const DURATION_TEXT = /^(\d+)(ms|s|m|h|d|w)$/;

export const DURATION_RULE = 'a positive whole number of milliseconds, or text like "90s", "30m", "72h", "3d", "1w"';

/** A duration's schema, for the policy's schemas to build theirs with (see `policySchemas`). */
export function durationSchema() {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    const ms = typeof value === 'number' ? value : textToMs(value);
    if (ms === undefined || !Number.isSafeInteger(ms) || ms <= 0) {
      ctx.addIssue({ code: 'custom', message: `must be ${DURATION_RULE}` });
      return z.NEVER;
    }
    return ms;
  });
}

function textToMs(text: string): number | undefined {
  const match = DURATION_TEXT.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
