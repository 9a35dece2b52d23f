import { userInfo } from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
import type { ApiTokenRecord } from '../../../infra/db/index.js';
import { formatTable } from './table.js';
import { databaseOptions, printResult, withRepository, type DatabaseCommandOptions } from './database-command.js';
import { usageErrorsExit2 } from './order-session.js';

/**
 * What `tokens` needs for its help and its argument checks: the built-in roles (client/orders) and the rules the
 * records hold owners, roles and token ids to (infra/db's schemas). Loaded before the command line is parsed, only
 * when it names `tokens` (commands.ts): those modules bring the order service, Temporal's client and zod with them.
 */
export interface TokensDetails {
  builtInRoles: readonly string[];
  isOwner(value: string): boolean;
  isRole(value: string): boolean;
  isTokenId(value: string): boolean;
}

export async function loadTokensDetails(): Promise<TokensDetails> {
  const [{ BUILT_IN_ROLES }, { approverIdSchema, roleSchema, tokenIdSchema }] = await Promise.all([
    // principal.ts imports nothing: the order service and Temporal's client stay unloaded.
    import('../../orders/principal.js'),
    import('../../../infra/db/schemas.js'),
  ]);
  return {
    builtInRoles: BUILT_IN_ROLES,
    isOwner: (value) => approverIdSchema.safeParse(value).success,
    isRole: (value) => roleSchema.safeParse(value).success,
    isTokenId: (value) => tokenIdSchema.safeParse(value).success,
  };
}

const rolesHelp = (details: TokensDetails) => `
Roles (--roles, comma-separated, at least one):
  requester        submits orders and follows them
  ticket-system    a ticket system that submits orders for its requesters
  ops              runs the engine: sees every order, resolves uncertain buys
  admin            manages approvers and API tokens
  any other lower-case word (letters, digits, . _ -), e.g. finance-approver: an approver role of the
  directory, as the approval policy's tiers name it
Built-in roles: ${details.builtInRoles.join(', ')}.`;

const EXAMPLES = `
Examples:
  $ mve-orders tokens create --owner servicedesk --roles ticket-system --expires 90d --description "ServiceDesk Plus"
  $ mve-orders tokens create --owner ops-bot --roles ops --expires 2027-01-01
  $ mve-orders tokens list --owner servicedesk
  $ mve-orders tokens list --all --json
  $ mve-orders tokens revoke k3jq2m7x4abz`;

const tokensHelp = (details: TokensDetails) => `
A token (mvo_<id>_<secret>) authenticates a machine as its --owner, with its --roles. It is shown once, when
created: only a hash of its secret is stored, so a lost token cannot be shown again; revoke it and create
another. The <id> is public: it names the token in lists, logs and \`tokens revoke\`.
${rolesHelp(details)}
${EXAMPLES}`;

/**
 * Without `details` (another command runs, or the list of commands is shown), `tokens` is registered for the list
 * of commands alone, without its subcommands: they are never reached then.
 */
export function registerTokensCommand(program: Command, details: TokensDetails | undefined): void {
  // Usage mistakes exit 2; the subcommands inherit this.
  const tokens = usageErrorsExit2(program.command('tokens')).description(
    'Issue, list and revoke API tokens for machines (stored in PostgreSQL as hashes)',
  );
  if (!details) return;
  tokens.addHelpText('after', tokensHelp(details));
  registerCreate(tokens, details);
  registerList(tokens, details);
  registerRevoke(tokens, details);
}

type CreateOptions = DatabaseCommandOptions & { owner: string; roles: string[]; expires?: Date; description?: string };

function registerCreate(tokens: Command, details: TokensDetails): void {
  databaseOptions(tokens.command('create'))
    .description('Create an API token and print it, once')
    .requiredOption(
      '--owner <id>',
      'whom the token acts as (letters, digits and . _ @ -), e.g. servicedesk',
      ownerParser(details),
    )
    .requiredOption(
      '--roles <roles>',
      'comma-separated roles, e.g. ticket-system or ops,finance-approver',
      rolesParser(details),
    )
    .option(
      '--expires <when>',
      'a number of days (90d) or a date (2027-01-01, its start in UTC); default: never',
      parseExpiry,
    )
    .option(
      '--description <text>',
      'what the token is for, e.g. the machine that holds it',
      shortText('--description', 500),
    )
    .addHelpText('after', `${rolesHelp(details)}\n${EXAMPLES}`)
    .action((options: CreateOptions) =>
      withRepository(options, async (repo) => {
        const { issueApiToken } = await import('../../http/auth/api-tokens.js');
        const { token, record } = await issueApiToken(repo, {
          owner: options.owner,
          roles: options.roles,
          description: options.description,
          expiresAt: options.expires,
        });
        printCreated(token, record, options.json ?? false);
      }),
    );
}

/** The token, this once, with the warning that it cannot be shown again (on stderr with --json). */
function printCreated(token: string, record: ApiTokenRecord, json: boolean): void {
  const warning = 'this token is shown once and cannot be shown again: only its hash is stored. Copy it now.';
  if (json) {
    process.stderr.write(`mve-orders tokens create: ${warning}\n`);
    const { id, owner, roles, expiresAt } = record;
    process.stdout.write(`${JSON.stringify({ token, id, owner, roles, expiresAt }, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `created API token ${describe(record)}\n\n` +
      `  ${token}\n\n` +
      `Warning: ${warning}\n` +
      `Revoke it with: mve-orders tokens revoke ${record.id}\n`,
  );
}

function registerList(tokens: Command, details: TokensDetails): void {
  databaseOptions(tokens.command('list'))
    .description('List API tokens (never their secrets): live ones, or all with --all')
    .option('--owner <id>', 'only tokens acting as this owner', ownerParser(details))
    .option('--all', 'include revoked tokens')
    .action((options: DatabaseCommandOptions & { owner?: string; all?: boolean }) =>
      withRepository(options, async (repo) => {
        const list = await repo.listTokens({ owner: options.owner, includeRevoked: options.all ?? false });
        printResult(options, list, () => tokensTable(list, options.all ?? false));
      }),
    );
}

function registerRevoke(tokens: Command, details: TokensDetails): void {
  databaseOptions(tokens.command('revoke'))
    .description('Revoke an API token: it is refused from now on. Revoking a revoked token changes nothing')
    .argument(
      '<id>',
      "the token's id (the <id> of mvo_<id>_<secret>, as `tokens list` shows it)",
      tokenIdParser(details),
    )
    .option('--by <who>', 'who revokes it, recorded with the token (default: your user name)', shortText('--by', 255))
    .action((id: string, options: DatabaseCommandOptions & { by?: string }) =>
      withRepository(options, async (repo) => {
        const result = await repo.revokeToken({ id, by: options.by ?? currentUser() });
        printResult(options, result, () =>
          result.revoked
            ? `revoked API token ${describe(result.token)}\n`
            : `API token ${result.token.id} was already revoked (${revocation(result.token)}); nothing changed\n`,
        );
      }),
    );
}

// Argument parsers: each names its option and the rule, and commander exits 2 (usageErrorsExit2).

function ownerParser(details: TokensDetails) {
  return (value: string): string => {
    const owner = value.trim();
    if (!details.isOwner(owner)) {
      throw new InvalidArgumentError(
        '--owner must be letters, digits and . _ @ - (at most 128, starting with a letter or digit), e.g. servicedesk',
      );
    }
    return owner;
  };
}

/** "ops, finance-approver" → ['ops', 'finance-approver']; each a lower-case word, at least one. */
function rolesParser(details: TokensDetails) {
  const builtIn = details.builtInRoles.join(', ');
  return (value: string): string[] => {
    const roles = value
      .split(',')
      .map((role) => role.trim())
      .filter((role) => role !== '');
    if (roles.length === 0) throw new InvalidArgumentError(`--roles must name at least one role, e.g. ${builtIn}`);
    const bad = roles.find((role) => !details.isRole(role));
    if (bad !== undefined) {
      throw new InvalidArgumentError(
        `--roles must be comma-separated lower-case words (letters, digits, . _ -, starting with a letter), ` +
          `e.g. ${builtIn} or finance-approver; ${JSON.stringify(bad)} is not one`,
      );
    }
    return [...new Set(roles)];
  };
}

const MAX_DAYS = 3650;

/** `90d` (days from now) or a date `2027-01-01` (its start, UTC) or an ISO 8601 time with offset; in the future. */
export function parseExpiry(value: string, now: Date = new Date()): Date {
  const text = value.trim();
  const rule = `--expires must be a number of days (e.g. 90d, at most ${MAX_DAYS}d) or a date (e.g. 2027-01-01)`;
  let at: Date;
  const days = /^(\d{1,5})d$/.exec(text);
  if (days) {
    const count = Number(days[1]);
    if (count < 1 || count > MAX_DAYS) throw new InvalidArgumentError(`${rule}; days are 1 to ${MAX_DAYS}`);
    at = new Date(now.getTime() + count * 86_400_000);
  } else if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    at = new Date(`${text}T00:00:00Z`);
    if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text) {
      throw new InvalidArgumentError(`${rule}; ${text} is not a date`);
    }
  } else if (/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text))) {
    at = new Date(text);
  } else {
    throw new InvalidArgumentError(rule);
  }
  if (at.getTime() <= now.getTime()) throw new InvalidArgumentError(`--expires must be in the future (${text} is not)`);
  return at;
}

function shortText(option: string, max: number) {
  return (value: string): string => {
    const text = value.trim();
    if (text === '' || text.length > max) throw new InvalidArgumentError(`${option} must be 1 to ${max} characters`);
    return text;
  };
}

/** The id; the whole token is accepted too (its id is taken), so a leaked token can be revoked as it was found. */
function tokenIdParser(details: TokensDetails) {
  return (value: string): string => {
    const id = /^mvo_([a-z0-9]{8,32})_/.exec(value.trim())?.[1] ?? value.trim();
    if (!details.isTokenId(id)) {
      throw new InvalidArgumentError(
        'a token id is 8 to 32 lowercase letters and digits, as `mve-orders tokens list` shows it',
      );
    }
    return id;
  };
}

/** Who runs the CLI, for `revoked_by`: $USER (or $LOGNAME, $USERNAME), else the account's name. */
function currentUser(): string {
  const fromEnv = [process.env.USER, process.env.LOGNAME, process.env.USERNAME].find((name) => name?.trim());
  if (fromEnv) return fromEnv.trim().slice(0, 255);
  try {
    return userInfo().username || 'mve-orders CLI';
  } catch {
    return 'mve-orders CLI';
  }
}

const when = (at: string | null, none: string) => (at === null ? none : `${at.slice(0, 16)}Z`);

function revocation(token: ApiTokenRecord): string {
  return `revoked ${when(token.revokedAt, '')} by ${token.revokedBy}`;
}

function describe(token: ApiTokenRecord): string {
  const expiry = token.expiresAt === null ? 'never expires' : `expires ${when(token.expiresAt, '')}`;
  return `${token.id} (owner ${token.owner}; roles ${token.roles.join(',')}; ${expiry})`;
}

function tokensTable(list: ApiTokenRecord[], all: boolean): string {
  if (list.length === 0) return all ? 'No API tokens.\n' : 'No live API tokens (--all shows revoked ones too).\n';
  const rows = list.map((token) => [
    token.id,
    token.owner,
    token.roles.join(','),
    when(token.createdAt, ''),
    when(token.expiresAt, 'never'),
    when(token.lastUsedAt, 'never'),
    token.revokedAt === null ? 'no' : `${when(token.revokedAt, '')} by ${token.revokedBy}`,
  ]);
  return formatTable(['ID', 'OWNER', 'ROLES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'], rows);
}
