/**
 * Whether a console page fits its window, read in the page itself (a playwright-core Page): the browser tests
 * (test/console) ask it of every page at a laptop's and a phone's width, and the walkthrough of `npm start` asks it of
 * the console it started.
 *
 *   const problems = await pageFitProblems(page);   // [] when the page fits
 *   if (problems.length) throw new Error(describeFitProblems(problems));
 *
 * It checks that the page does not scroll sideways (`scrollWidth <= clientWidth` of document.documentElement), that
 * no table's container does (the box a table sits in scrolls by itself rather than the page: it must not need to),
 * and that no cell of a table is overflowed by what it holds, across or below (on a phone, a row's cells are a card:
 * a label or value that spills out of its cell spills out of the card). Tables folded in a closed <details> are
 * unfolded for the check and folded again. One pixel is allowed for rounding.
 */
import type { Page } from 'playwright-core';

export interface FitProblem {
  /** What does not fit: `the page`, `the container of table "ops-row"`, `a "Waiting since (UTC)" cell of table …`. */
  what: string;
  /** Across or below. */
  direction: 'across' | 'below';
  /** CSS pixels: what it needs, and what it has. */
  needs: number;
  has: number;
}

/** Read in the page, as text: the checks are compiled without the DOM's types. */
const CHECK = `(() => {
  const problems = [];
  const over = (what, direction, needs, has) => {
    if (needs > has + 1) problems.push({ what, direction, needs: Math.round(needs), has: Math.round(has) });
  };
  const shown = (element) => element.getClientRects().length > 0;
  const nameOf = (table) => {
    if (table.dataset.testid) return table.dataset.testid;
    const caption = table.querySelector(':scope > caption');
    if (caption && caption.textContent.trim()) return caption.textContent.trim();
    const heading = table.closest('section, details')?.querySelector('h1, h2, h3');
    return heading ? heading.textContent.trim() : 'without a name';
  };
  const folded = [...document.querySelectorAll('details:not([open])')];
  for (const details of folded) details.open = true;
  try {
    const root = document.documentElement;
    over('the page', 'across', root.scrollWidth, root.clientWidth);
    for (const table of document.querySelectorAll('table')) {
      if (!shown(table)) continue;
      const name = nameOf(table);
      const box = table.parentElement;
      if (box && box !== document.body) over('the container of table "' + name + '"', 'across', box.scrollWidth, box.clientWidth);
      for (const cell of table.querySelectorAll(':scope > tbody > tr > th, :scope > tbody > tr > td')) {
        if (!shown(cell)) continue;
        const what = 'a "' + (cell.dataset.label || 'detail') + '" cell of table "' + name + '"';
        over(what, 'across', cell.scrollWidth, cell.clientWidth);
        over(what, 'below', cell.scrollHeight, cell.clientHeight);
      }
    }
  } finally {
    for (const details of folded) details.open = false;
  }
  return problems;
})()`;

/** What of the page does not fit its window; empty when it all fits. */
export function pageFitProblems(page: Pick<Page, 'evaluate'>): Promise<FitProblem[]> {
  return page.evaluate<FitProblem[]>(CHECK);
}

/** The problems as lines: `the page: 1429 px across in 1280`. */
export function describeFitProblems(problems: readonly FitProblem[]): string {
  return problems
    .map((problem) => `${problem.what}: ${problem.needs} px ${problem.direction} in ${problem.has}`)
    .join('\n');
}
