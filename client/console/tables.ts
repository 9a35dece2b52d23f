/**
 * The console's tables: a header row at desktop widths; on a phone each row becomes a card whose cells carry their
 * column's name (`data-label`, shown by the layout's CSS beside the value, never over it). Each row is a <tbody> of
 * its own, so a row may have a `detail` below it across every column (a list's last error), and a card holds both.
 * Long values wrap (ids and names anywhere, when they must); a long detail is cut to two lines, its full text in its
 * `title` and on the order's page. The table sits in a container that would scroll by itself if it were ever wider
 * than the page, so the page never scrolls sideways; the browser tests check that neither does.
 */
import { html, type Html } from './html.js';

export interface Column<Row> {
  /** The column's header, and each cell's label on a phone. */
  label: string;
  cell: (row: Row) => Html | string;
  /** Amounts: right-aligned, kept on one line. */
  num?: boolean;
  /** An extra class for a cell (`urgent`; `prose` for text that wraps; `id` for a name or id that may wrap anywhere). */
  className?: (row: Row) => string | undefined;
}

export function dataTable<Row>(options: {
  columns: ReadonlyArray<Column<Row>>;
  rows: readonly Row[];
  caption?: string;
  testId?: string;
  /** Attributes of each row's <tr> (its test id, its ticket). */
  rowAttributes?: (row: Row) => Html;
  /** The first column names the row: a header cell (`<th scope="row">`). */
  rowHeader?: boolean;
  /** A line under the row, across every column (its label in its own words): e.g. the order's last error. */
  detail?: (row: Row) => Html | undefined;
  /**
   * Many columns: cards already below a laptop's width (70rem), side by side where there is room, so that no width
   * leaves the table wider than its box. Other tables become cards on a phone (40rem).
   */
  wide?: boolean;
}): Html {
  const { columns, rows, caption, testId, rowAttributes, rowHeader, detail, wide } = options;
  const cell = (column: Column<Row>, row: Row, index: number): Html => {
    const classes = [column.num ? 'num' : undefined, column.className?.(row)].filter(Boolean).join(' ');
    const attributes = html`${classes ? html` class="${classes}"` : ''} data-label="${column.label}"`;
    return rowHeader && index === 0
      ? html`<th scope="row"${attributes}>${column.cell(row)}</th>`
      : html`<td${attributes}>${column.cell(row)}</td>`;
  };
  const body = (row: Row): Html => {
    const below = detail?.(row);
    return html`<tbody><tr ${rowAttributes?.(row) ?? ''}${below ? html` class="has-detail"` : ''}>${columns.map((column, index) => cell(column, row, index))}</tr>${
      below ? html`<tr class="detail"><td colspan="${columns.length}">${below}</td></tr>` : ''
    }</tbody>`;
  };
  return html`<div class="table-scroll"><table class="cards${wide ? ' wide' : ''}" ${testId ? html`data-testid="${testId}"` : ''}>
    ${caption ? html`<caption>${caption}</caption>` : ''}
    <thead><tr>${columns.map((column) => html`<th scope="col"${column.num ? html` class="num"` : ''}>${column.label}</th>`)}</tr></thead>
    ${rows.map(body)}
  </table></div>`;
}

/**
 * Text that may be long (an error), cut to two lines in a list: the whole of it stays in the page (screen readers and
 * copying get all of it) and in its `title` (shown on hover); the order's page shows it in full.
 */
export function clamped(text: Html | string, full: string, testId?: string): Html {
  return html`<span class="clamp" title="${full}"${testId ? html` data-testid="${testId}"` : ''}>${text}</span>`;
}
