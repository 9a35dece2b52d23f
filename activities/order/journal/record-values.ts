/** Values fitted to the records at this boundary: long texts cut with a marker, money to 6 decimals, currency codes. */

/** Appended to a text cut to fit its column, so a reader knows there was more. */
export const TRUNCATED = '… [truncated]';

/** `text` cut to at most `max` characters, marked when cut. */
export function fit(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - TRUNCATED.length)}${TRUNCATED}`;
}

/** Money as the records keep it: at most 6 decimals. */
export function money(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

/** A currency as the records keep it: its code, upper case. */
export function currencyCode(currency: string): string {
  return currency.trim().toUpperCase();
}
