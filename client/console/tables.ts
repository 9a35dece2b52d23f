/**
 * The console's tables: a header row at desktop widths; on a phone each row becomes a card whose cells carry their
 * column's name (`data-label`, shown by the layout's CSS). The table sits in a container that scrolls by itself if
 * it is ever wider than the page, so the page never scrolls sideways.
 */
import { html, type Html } from './html.js';

export interface Column<Row> {
  /** The column's header, and each cell's label on a phone. */
  label: string;
  cell: (row: Row) => Html | string;
  /** Amounts: right-aligned, kept on one line. */
  num?: boolean;
  /** An extra class for a cell (e.g. `urgent`). */
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
}): Html {
  const { columns, rows, caption, testId, rowAttributes, rowHeader } = options;
  const cell = (column: Column<Row>, row: Row, index: number): Html => {
    const classes = [column.num ? 'num' : undefined, column.className?.(row)].filter(Boolean).join(' ');
    const attributes = html`${classes ? html` class="${classes}"` : ''} data-label="${column.label}"`;
    return rowHeader && index === 0
      ? html`<th scope="row"${attributes}>${column.cell(row)}</th>`
      : html`<td${attributes}>${column.cell(row)}</td>`;
  };
  return html`<div class="table-scroll"><table class="cards" ${testId ? html`data-testid="${testId}"` : ''}>
    ${caption ? html`<caption>${caption}</caption>` : ''}
    <thead><tr>${columns.map((column) => html`<th scope="col"${column.num ? html` class="num"` : ''}>${column.label}</th>`)}</tr></thead>
    <tbody>${rows.map(
      (row) => html`<tr ${rowAttributes?.(row) ?? ''}>${columns.map((column, index) => cell(column, row, index))}</tr>`,
    )}</tbody>
  </table></div>`;
}
