// Value forms the list filter accepts that need more than a type check: instants, execution statuses and Text words.

/** RFC 3339 with optional fraction, as Temporal's server parses times (Go's RFC3339Nano layout). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Epoch milliseconds (with a fraction down to the microsecond) of an RFC 3339 instant, or undefined if the text is not
 * one or names an impossible date such as February 30.
 */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  date.setUTCHours(hour, minute, second, 0);
  const offsetSign = match[9] === '-' ? -1 : 1;
  const offsetMs = match[8] ? 0 : offsetSign * (offsetHours * 60 + offsetMinutes) * 60_000;
  const fractionMs = match[7] ? Number(`0${match[7]}`) * 1000 : 0;
  return date.getTime() - offsetMs + fractionMs;
}

/** Epoch milliseconds of an integer count of nanoseconds since the epoch (the server's other time form). */
export function nanosecondsToMs(integerText: string): number {
  return Number(BigInt(integerText) / 1000n) / 1000;
}

/** Status names in enum order, so index = the numeric value of WorkflowExecutionStatus. */
const STATUS_NAMES = [
  'Unspecified',
  'Running',
  'Completed',
  'Failed',
  'Canceled',
  'Terminated',
  'ContinuedAsNew',
  'TimedOut',
];

const STATUS_BY_TEXT = new Map<string, string>(
  STATUS_NAMES.flatMap((name) => {
    const screaming = `WORKFLOW_EXECUTION_STATUS_${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
    return [
      [name, name],
      [screaming, name],
    ];
  }),
);

export const EXECUTION_STATUS_CHOICES = STATUS_NAMES.slice(1).join(', ');

/** The status name for a name ('Running'), an enum constant ('WORKFLOW_EXECUTION_STATUS_RUNNING') or its number (1). */
export function parseExecutionStatus(value: string | number): string | undefined {
  return typeof value === 'number' ? STATUS_NAMES[value] : STATUS_BY_TEXT.get(value);
}

/** The words of a Text value: runs of letters and digits, lower-cased ("my-order_42" has my, order, 42). */
export function textWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A test for whether a Text value contains at least one of `words` as a whole word, in any case. */
export function anyWordMatcher(words: string[]): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
}
