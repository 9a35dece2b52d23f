import test from 'ava';
import { createRepository } from '../../infra/db/index.js';
import { authenticateApiToken } from '../../client/http/auth/api-tokens.js';
import { runCli } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);

// Serial: each test spawns the real binary several times, and the machine is shared.

const TOKEN = /mvo_([a-z2-7]{12})_[A-Za-z0-9_-]{43}/;
const DAY = 86_400_000;

/** What `tokens create --json` prints: the token, this once, and its public facts. */
interface IssuedToken {
  token: string;
  id: string;
  owner: string;
  roles: string[];
  expiresAt: string;
}

/** A token as `tokens list --json` prints it (its record, dates as ISO text); never its secret. */
type ListedToken = { id: string } & Record<string, unknown>;

test.serial(
  'tokens create prints the token once with a warning; list shows it without secrets; revoke is idempotent',
  async (t) => {
    const { url, sql } = await postgres.database();
    const env = { DATABASE_URL: url, USER: 'tester' };

    const created = await runCli(
      [
        'tokens',
        'create',
        '--owner',
        'servicedesk',
        '--roles',
        'ticket-system, requester',
        '--description',
        'ServiceDesk Plus',
      ],
      { env },
    );
    t.is(created.code, 0, created.stderr);
    const [token, id] = TOKEN.exec(created.stdout) as unknown as [string, string];
    t.truthy(token);
    t.regex(
      created.stdout,
      new RegExp(
        `^created API token ${id} \\(owner servicedesk; roles requester,ticket-system; never expires\\)$`,
        'm',
      ),
    );
    t.regex(created.stdout, /cannot be shown again/);
    t.regex(created.stdout, new RegExp(`mve-orders tokens revoke ${id}`));

    // The printed token works.
    const repo = createRepository(sql);
    t.like(await authenticateApiToken(repo, token), { id: 'servicedesk', roles: ['requester', 'ticket-system'] });

    const json = await runCli(
      ['tokens', 'create', '--owner', 'ops-bot', '--roles', 'ops', '--expires', '90d', '--json'],
      { env },
    );
    t.is(json.code, 0, json.stderr);
    const issued = JSON.parse(json.stdout) as IssuedToken;
    t.deepEqual(Object.keys(issued).sort(), ['expiresAt', 'id', 'owner', 'roles', 'token']);
    t.like(issued, { owner: 'ops-bot', roles: ['ops'] });
    t.regex(issued.token, TOKEN);
    t.is(TOKEN.exec(issued.token)![1], issued.id);
    t.true(Math.abs(Date.parse(issued.expiresAt) - (Date.now() + 90 * DAY)) < 60_000, 'expires in 90 days');
    t.regex(json.stderr, /cannot be shown again/, 'the warning goes to stderr, leaving stdout JSON');

    const table = await runCli(['tokens', 'list'], { env });
    t.is(table.code, 0, table.stderr);
    const lines = table.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    t.deepEqual(lines[0], ['ID', 'OWNER', 'ROLES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED']);
    t.deepEqual(
      lines.slice(1).map((row) => [row[0], row[1], row[2], row[4], row[6]]),
      [
        [id, 'servicedesk', 'requester,ticket-system', 'never', 'no'],
        [issued.id, 'ops-bot', 'ops', issued.expiresAt.slice(0, 16) + 'Z', 'no'],
      ],
    );
    t.regex(lines[1][5], /^\d{4}-\d\d-\d\dT\d\d:\d\dZ$/, 'the first token was used (by the check above)');
    t.is(lines[2][5], 'never');

    const listed = await runCli(['tokens', 'list', '--owner', 'ops-bot', '--json'], { env });
    t.is(listed.code, 0, listed.stderr);
    const records = JSON.parse(listed.stdout) as ListedToken[];
    t.deepEqual(
      records.map((r) => r.id),
      [issued.id],
    );
    t.false('secretHash' in records[0]);
    for (const output of [table.stdout, listed.stdout]) {
      t.false(output.includes(token.slice(-43)) || output.includes(issued.token.slice(-43)), 'no secret is listed');
    }

    const revoked = await runCli(['tokens', 'revoke', id], { env });
    t.is(revoked.code, 0, revoked.stderr);
    t.is(revoked.stdout, `revoked API token ${id} (owner servicedesk; roles requester,ticket-system; never expires)\n`);
    const again = await runCli(['tokens', 'revoke', id, '--by', 'someone-else', '--json'], { env });
    t.is(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout) as { revoked: boolean; token: ListedToken };
    t.false(result.revoked);
    t.like(result.token, { id, revokedBy: 'tester' });
    await t.throwsAsync(authenticateApiToken(repo, token), { message: /was revoked/ });

    const live = await runCli(['tokens', 'list', '--json'], { env });
    t.deepEqual(
      (JSON.parse(live.stdout) as ListedToken[]).map((r) => r.id),
      [issued.id],
    );
    const all = await runCli(['tokens', 'list', '--all'], { env });
    t.regex(all.stdout, new RegExp(`^${id} .* \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\dZ by tester$`, 'm'));

    const unknown = await runCli(['tokens', 'revoke', 'nosuchtoken1'], { env });
    t.is(unknown.code, 2);
    t.regex(unknown.stderr, /no API token with id nosuchtoken1/);
  },
);

test.serial(
  'bad roles, expiry, owner or a missing option exit 2 naming the option and the rule, creating nothing',
  async (t) => {
    const { url } = await postgres.database();
    const env = { DATABASE_URL: url };
    const cases: Array<[string[], RegExp]> = [
      [
        ['--owner', 'bot', '--roles', 'Finance Team'],
        /--roles must be comma-separated lower-case words .*"Finance Team" is not one/,
      ],
      [['--owner', 'bot', '--roles', ' , '], /--roles must name at least one role/],
      [
        ['--owner', 'bot', '--roles', 'ops', '--expires', '90x'],
        /--expires must be a number of days \(e\.g\. 90d.*\) or a date/,
      ],
      [['--owner', 'bot', '--roles', 'ops', '--expires', '2020-01-01'], /--expires must be in the future/],
      [['--owner', 'bot', '--roles', 'ops', '--expires', '2027-02-30'], /--expires .*2027-02-30 is not a date/],
      [['--owner', 'bot', '--roles', 'ops', '--expires', '0d'], /--expires .*days are 1 to 3650/],
      [['--owner', 'bad owner!', '--roles', 'ops'], /--owner must be letters, digits and \. _ @ -/],
      [['--owner', 'bot'], /required option '--roles <roles>' not specified/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['tokens', 'create', ...args], { env });
      t.is(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      t.regex(result.stderr, message);
      t.is(result.stdout, '');
    }
    const badId = await runCli(['tokens', 'revoke', 'Not_An_Id'], { env });
    t.is(badId.code, 2);
    t.regex(badId.stderr, /a token id is 8 to 32 lowercase letters and digits/);

    const list = await runCli(['tokens', 'list', '--all', '--json'], { env });
    t.deepEqual(JSON.parse(list.stdout), []);
  },
);

test.serial('tokens --help explains the roles with examples', async (t) => {
  for (const args of [
    ['tokens', '--help'],
    ['tokens', 'create', '--help'],
  ]) {
    const help = await runCli(args);
    t.is(help.code, 0);
    t.regex(help.stdout, /requester +.*\n +ticket-system +.*\n +ops +.*\n +admin +/);
    t.regex(help.stdout, /finance-approver/);
    t.regex(help.stdout, /\$ mve-orders tokens create --owner \S+ --roles ticket-system --expires 90d/);
  }
});
