// CSV as RFC 4180 writes it (comma-separated, CRLF line ends, fields quoted when they hold a comma, a quote or a line
// break), for spreadsheets: text a caller chose that begins like a formula is kept as text.

/** Characters a spreadsheet reads as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell: numbers and dates as they are; `text` (someone's words: ids, names) kept from being read as a formula. */
export function csvCell(value: string | number | boolean | null, kind: 'value' | 'text' = 'value'): string {
  if (value === null) return '';
  let cell = String(value);
  if (kind === 'text' && FORMULA_START.test(cell)) cell = `'${cell}`;
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** The header row, then each row, as one CSV text. */
export function csvText(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [header.map((name) => csvCell(name)), ...rows].map((cells) => `${cells.join(',')}\r\n`).join('');
}
