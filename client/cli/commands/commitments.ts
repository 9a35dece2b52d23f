import { InvalidArgumentError, type Command } from 'commander';
import type { Commitments, CommitmentsQuery, TeamCommitmentFigures } from '../../http-client/index.js';
import { nonEmpty, orderCommand, printJson, runOrderCommand, type OrderCommandOptions } from './order-session.js';
import { formatTable } from './table.js';

interface CommitmentsOptions extends OrderCommandOptions {
  env?: 'staging' | 'production';
  month?: string;
  team?: string;
  currency?: string;
  cursor?: string;
  csv?: boolean;
}

/** The widest line the human output prints: a long team or ticket id is cut to keep to it. */
const MAX_WIDTH = 100;

const EXAMPLE = `
Example:
  mve-orders commitments --month 2026-01 --currency AUD
  mve-orders commitments --env staging --team network --csv > commitments.csv

Amounts are exact, as the API gives them, in their own currency (never converted); "OVER" marks
a figure over its budget. The table lists the figures per team and currency and the renewals
(terms ending in the next 90 days); --json has the orders behind the figures too (50 a page),
--csv all of them (up to 10,000 rows; the --cursor of a further page is printed on stderr).`;

export function registerCommitmentsCommand(program: Command): void {
  orderCommand(program.command('commitments'))
    .description(
      "What the teams committed to in a month, per team and currency against budget, and the renewals (finance and ops: every team's; a requester: their own)",
    )
    .option('--env <environment>', 'the environment (staging or production; default production)', parseEnvironment)
    .option('--month <YYYY-MM>', "the calendar month in the policy's time zone (default: the current one)", parseMonth)
    .option('--team <id>', "only this team's (a requester may name only their own)", nonEmpty('--team'))
    .option('--currency <code>', 'only this currency (e.g. AUD)', parseCurrency)
    .option(
      '--cursor <cursor>',
      'with --json or --csv: the next page of the orders behind the figures',
      nonEmpty('--cursor'),
    )
    .option('--csv', 'print the orders behind the figures as the CSV the API gives')
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', EXAMPLE)
    .action((options: CommitmentsOptions) =>
      runOrderCommand('commitments', options, async ({ api }) => {
        const query: CommitmentsQuery = {
          ...(options.env ? { environment: options.env } : {}),
          ...(options.month ? { month: options.month } : {}),
          ...(options.team ? { team: options.team } : {}),
          ...(options.currency ? { currency: options.currency } : {}),
          ...(options.cursor ? { cursor: options.cursor } : {}),
        };
        if (options.csv) {
          const { csv, nextCursor } = await api.commitmentsCsv(query);
          process.stdout.write(csv);
          if (nextCursor) process.stderr.write(`more rows: the same with --cursor ${nextCursor}\n`);
          return;
        }
        const commitments = await api.commitments(query);
        if (options.json) return printJson(commitments);
        process.stdout.write(formatCommitments(commitments));
      }),
    );
}

/** The figures per team and currency, then the renewals, in at most MAX_WIDTH columns. */
export function formatCommitments(commitments: Commitments): string {
  const asOf = commitments.asOf.slice(0, 16).replace('T', ' ');
  const lines = [
    `Commitments of ${commitments.environment} in ${commitments.month}, months in ${commitments.timeZone}`,
    `Run-rate as of ${asOf} UTC`,
    '',
  ];
  if (commitments.teams.length === 0) lines.push('Nothing committed and no budget set.\n');
  else lines.push(figuresTable(commitments.teams));
  lines.push(`Renewals: terms ending within ${commitments.renewalDays} days`);
  if (commitments.renewals.length === 0) lines.push('None.\n');
  else {
    lines.push(
      fitted(
        ['TICKET', 'TEAM', 'MONTHLY', 'TERM', 'TERM ENDS (UTC)', 'DAYS LEFT'],
        commitments.renewals.map((renewal) => [
          renewal.ticketId,
          renewal.team ?? '-',
          `${renewal.monthlyRate} ${renewal.currency}`,
          `${renewal.termMonths} mo`,
          renewal.termEndsAt.slice(0, 16).replace('T', ' '),
          String(renewal.daysLeft),
        ]),
      ),
    );
    if (commitments.moreRenewals) lines.push('(more end in that time: --json lists the first 500)\n');
  }
  return `${lines.join('\n')}`;
}

function figuresTable(teams: TeamCommitmentFigures[]): string {
  return fitted(
    ['TEAM', 'CUR', 'RUN-RATE', 'CAP', 'CAP LEFT', 'APPROVED', 'BUDGET', 'BUDGET LEFT'],
    teams.map((figures) => [
      figures.team ?? '(no team)',
      figures.currency,
      figures.runRate,
      figures.budget.runRateCap ?? '-',
      left(figures.remaining.runRateCap),
      figures.approvedThisMonth,
      figures.budget.monthlyNew ?? '-',
      left(figures.remaining.monthlyNew),
    ]),
  );
}

/** What remains of a budget; a negative one is over it, and says so. */
function left(remaining: string | null): string {
  if (remaining === null) return '-';
  return remaining.startsWith('-') ? `${remaining} OVER` : remaining;
}

/** A table whose first column is cut (with …) as much as the lines need to fit MAX_WIDTH. */
function fitted(header: readonly string[], rows: string[][]): string {
  const widest = Math.max(
    ...formatTable(header, rows)
      .split('\n')
      .map((line) => line.length),
  );
  const cut = widest - MAX_WIDTH;
  if (cut <= 0) return formatTable(header, rows);
  const first = Math.max(header[0].length, ...rows.map((row) => row[0].length));
  const keep = Math.max(8, first - cut);
  return formatTable(
    header,
    rows.map(([name, ...rest]) => [name.length > keep ? `${name.slice(0, keep - 1)}…` : name, ...rest]),
  );
}

function parseEnvironment(value: string): 'staging' | 'production' {
  if (value !== 'staging' && value !== 'production')
    throw new InvalidArgumentError('--env must be staging or production');
  return value;
}

function parseMonth(value: string): string {
  if (!/^[12]\d{3}-(0[1-9]|1[0-2])$/.test(value.trim())) {
    throw new InvalidArgumentError('--month must be a month as YYYY-MM, e.g. 2026-11');
  }
  return value.trim();
}

function parseCurrency(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw new InvalidArgumentError('--currency must be a three-letter code, e.g. AUD');
  return code;
}
