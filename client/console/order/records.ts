/** The order's records: votes, buy attempts and the timeline. */
import { decisionFigures } from '../../http/schemas.js';
import { sameIdentity, type ApiOrder, type DecisionFigures } from '../../orders/index.js';
import { budgetFiguresLine } from '../budget-figures.js';
import { html, money, moneyInText, stateBadge, UTC_COLUMN, when, type Html } from '../html.js';
import { dataTable } from '../tables.js';
import { currenciesOf, type OrderPageData } from './page-data.js';

interface VoteRow {
  who: string;
  decision: string;
  price: string;
  comment: string;
  /** The team's figures as the approver was shown them when voting (recorded votes of an order with a team). */
  figures?: DecisionFigures | null;
  /** When the vote was recorded; a vote of the live round may not be yet. */
  at?: string;
}

function liveVoteRow(vote: NonNullable<ApiOrder['approval']>['votes'][number]): VoteRow {
  return {
    who: vote.approverId,
    decision: vote.decision,
    price: money(vote.monthlyRate, vote.currency),
    comment: vote.comment ?? '',
  };
}

/** Every vote of every round from the records, and the live round\'s newest. */
export function votesTable({ order, history }: OrderPageData): Html {
  const recorded = history?.votes ?? [];
  const live = order.approval?.votes ?? [];
  const rows: VoteRow[] = recorded.length
    ? recorded.map((vote) => ({
        who: vote.approverId,
        decision: vote.decision,
        price: money(vote.monthlyRate, vote.currency),
        comment: vote.reason ?? '',
        figures: figuresOf(vote.figures),
        at: vote.at,
      }))
    : live.map(liveVoteRow);
  // Votes recorded a moment ago may not be in the records yet: show the live round's too.
  for (const vote of live) {
    if (
      !rows.some(
        (row) => sameIdentity(row.who, vote.approverId) && row.price === money(vote.monthlyRate, vote.currency),
      )
    ) {
      rows.push(liveVoteRow(vote));
    }
  }
  if (rows.length === 0) return html`<p data-testid="no-votes">No votes yet.</p>`;
  return dataTable({
    testId: 'votes',
    rowHeader: true,
    rows,
    rowAttributes: () => html`data-testid="vote-row"`,
    columns: [
      { label: 'Approver', cell: (row) => row.who },
      { label: 'Decision', cell: (row) => (row.decision === 'approve' ? 'approved' : 'rejected') },
      { label: 'On the price', num: true, cell: (row) => row.price },
      ...(rows.some((row) => row.figures)
        ? [{ label: "Team's figures then", cell: (row: VoteRow) => budgetFiguresLine(row.figures, 'vote-figures') }]
        : []),
      { label: 'Comment', className: () => 'prose', cell: (row) => row.comment },
      { label: 'When (UTC)', cell: (row) => when(row.at, UTC_COLUMN) },
    ],
  });
}

/** A vote's recorded figures, as the API keeps them (null: none, or of a shape this console does not read). */
function figuresOf(recorded: Record<string, unknown> | null): DecisionFigures | null {
  const parsed = decisionFigures.safeParse(recorded);
  return parsed.success ? parsed.data : null;
}

export function buyAttemptsSection({ history }: OrderPageData): Html {
  const attempts = history?.buyAttempts ?? [];
  return html`<section data-live="buys" aria-labelledby="buys-heading">
    ${
      attempts.length
        ? html`<h2 id="buys-heading">Buy attempts</h2>${dataTable({
            rows: attempts,
            columns: [
              { label: '#', cell: (a) => String(a.attempt) },
              { label: 'Sent (UTC)', cell: (a) => when(a.intentAt, UTC_COLUMN) },
              { label: 'Outcome', cell: (a) => a.outcome ?? 'unknown' },
              {
                label: 'Product UID',
                className: () => 'prose',
                cell: (a) => (a.technicalServiceUid ? html`<code>${a.technicalServiceUid}</code>` : ''),
              },
              { label: 'Error', className: () => 'prose', cell: (a) => a.errorMessage ?? '' },
              { label: 'Resolved by', cell: (a) => a.resolvedBy ?? '' },
            ],
          })}`
        : ''
    }
  </section>`;
}

interface TimelineRow {
  at: string;
  kind: string;
  state?: string;
  actor: string;
  text: string;
}

function liveStateRow(entry: NonNullable<ApiOrder['timeline']>[number]): TimelineRow {
  return { at: entry.at, kind: 'state', state: entry.state, actor: entry.actor, text: entry.reason };
}

/** State changes and notes, oldest first, from the records and the live workflow. */
export function timelineTable(data: OrderPageData): Html {
  const { order, history } = data;
  const live = order.timeline ?? [];
  const entries: TimelineRow[] = history?.timeline.length
    ? history.timeline.map(({ at, kind, actor, text, state }) => ({
        at,
        kind,
        ...(typeof state === 'string' ? { state } : {}),
        actor,
        text,
      }))
    : live.map(liveStateRow);
  // The live timeline can be ahead of the records by a moment: add its newer state changes.
  const recordedStates = entries.filter((e) => e.kind === 'state').length;
  const extra = history?.timeline.length ? live.slice(recordedStates).map(liveStateRow) : [];
  const all = [...entries, ...extra];
  if (all.length === 0) return html`<p>Nothing recorded yet.</p>`;
  const currencies = currenciesOf(data);
  return dataTable({
    testId: 'timeline',
    rows: all,
    columns: [
      { label: 'When (UTC)', cell: (entry) => when(entry.at, UTC_COLUMN) },
      { label: 'What', cell: (entry) => (entry.kind === 'state' ? stateBadge(entry.state ?? '') : 'note') },
      { label: 'Who', cell: (entry) => entry.actor },
      { label: 'Detail', className: () => 'prose', cell: (entry) => moneyInText(entry.text, currencies) },
    ],
  });
}
