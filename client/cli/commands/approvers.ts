import type { Command } from 'commander';
import type { ApproverRecord } from '../../../infra/db/index.js';
import { formatTable } from './table.js';
import { databaseOptions, printResult, withRepository, type DatabaseCommandOptions } from './database-command.js';

export function registerApproversCommand(program: Command): void {
  const approvers = program
    .command('approvers')
    .description('List and manage who may approve orders (stored in PostgreSQL)');

  databaseOptions(approvers.command('list'))
    .description('List approvers, active and inactive')
    .option('--active', 'only active approvers')
    .option('--role <role>', 'only approvers with this role')
    .action((options: DatabaseCommandOptions & { active?: boolean; role?: string }) =>
      withRepository(options, async (repo) => {
        const list = await repo.listApprovers({ activeOnly: options.active ?? false, role: options.role });
        printResult(options, list, () => approversTable(list));
      }),
    );

  databaseOptions(approvers.command('add'))
    .description('Add an active approver (or, with no roles, a person of the directory: a requester and their team)')
    .argument('<id>', 'the approver id, e.g. an email address')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--roles <roles>', 'comma-separated roles, e.g. finance,cfo ("" for none)')
    .option('--team <team>', "the team (a policy's cost centre) their orders are charged to when a request names none")
    .action((id: string, options: DatabaseCommandOptions & { name: string; roles: string; team?: string }) =>
      withRepository(options, async (repo) => {
        const result = await repo.addApprover({
          id,
          displayName: options.name,
          roles: parseRoles(options.roles),
          ...(options.team === undefined ? {} : { team: options.team }),
        });
        printResult(options, result, () =>
          result.created
            ? `added ${describe(result.approver)}\n`
            : `${describe(result.approver)} already exists; nothing changed\n`,
        );
      }),
    );

  databaseOptions(approvers.command('update'))
    .description("Change an approver's name, roles or team, or reactivate them")
    .argument('<id>', 'the approver id')
    .option('--name <name>', 'new display name')
    .option('--roles <roles>', 'new comma-separated roles (replaces the old ones)')
    .option('--team <team>', 'the team their orders are charged to when a request names none')
    .option('--no-team', 'clear their team')
    .option('--activate', 'make an inactive approver active again')
    .action((id: string, options: DatabaseCommandOptions & UpdateOptions) =>
      withRepository(options, async (repo) => {
        const approver = await repo.updateApprover({
          id,
          displayName: options.name,
          roles: options.roles === undefined ? undefined : parseRoles(options.roles),
          // commander: --team <team> gives the text, --no-team false, neither undefined.
          team: options.team === false ? null : options.team,
          active: options.activate ? true : undefined,
        });
        printResult(options, approver, () => `updated ${describe(approver)}\n`);
      }),
    );

  databaseOptions(approvers.command('deactivate'))
    .description('Deactivate an approver: they can no longer vote; their past votes stay')
    .argument('<id>', 'the approver id')
    .action((id: string, options: DatabaseCommandOptions) =>
      withRepository(options, async (repo) => {
        const approver = await repo.deactivateApprover(id);
        printResult(options, approver, () => `deactivated ${describe(approver)}\n`);
      }),
    );
}

interface UpdateOptions {
  name?: string;
  roles?: string;
  team?: string | false;
  activate?: boolean;
}

/** "finance, cfo" → ['finance', 'cfo']; the repository checks each role's form. */
function parseRoles(list: string): string[] {
  return list
    .split(',')
    .map((role) => role.trim())
    .filter((role) => role !== '');
}

function describe(approver: ApproverRecord): string {
  const roles = approver.roles.length > 0 ? approver.roles.join(',') : 'no roles';
  const team = approver.team === null ? '' : `; team ${approver.team}`;
  return `approver ${approver.id} (${approver.displayName}; ${roles}${team}${approver.active ? '' : '; inactive'})`;
}

function approversTable(list: ApproverRecord[]): string {
  if (list.length === 0) return 'No approvers.\n';
  const rows = list.map((a) => [a.id, a.displayName, a.roles.join(','), a.team ?? '-', a.active ? 'yes' : 'no']);
  return formatTable(['ID', 'NAME', 'ROLES', 'TEAM', 'ACTIVE'], rows);
}
