import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import test from 'ava';
import { canonicalJson } from '../../domain/index.js';
import {
  ApprovalPolicyError,
  defaultApprovalPolicies,
  loadApprovalPolicies,
  parseApprovalPolicy,
  type ApprovalPolicyInput,
} from '../../domain/approval/index.js';
import { HOUR, TEST_POLICY_INPUT } from './fixtures.js';

const noFile = (path: string): string => {
  throw new Error(`unexpected read of ${path}`);
};

function policyErrorFor(input: unknown): ApprovalPolicyError {
  const error = (() => {
    try {
      parseApprovalPolicy(input);
    } catch (caught) {
      return caught;
    }
    throw new Error('the policy was accepted');
  })();
  if (!(error instanceof ApprovalPolicyError)) throw error;
  return error;
}

const paths = (error: ApprovalPolicyError) => error.issues.map((issue) => issue.path);

test('the shipped defaults cover staging and production with durations in milliseconds', (t) => {
  const { staging, production } = defaultApprovalPolicies();
  t.is(production.autoApproveBelow.USD, 500);
  t.is(production.deadline, 72 * HOUR);
  t.deepEqual(production.reminders.beforeDeadline, [48 * HOUR, 24 * HOUR, HOUR]);
  t.is(production.maxQuoteAge, 12 * HOUR);
  t.is(production.tiers.at(-1)!.approvals, 2);
  t.false(production.alwaysRequireHuman);
  t.is(staging.autoApproveBelow.USD, 2000);
});

test('a parsed policy parses again to the same value (the workflow may re-check its input)', (t) => {
  const once = parseApprovalPolicy(TEST_POLICY_INPUT);
  t.deepEqual(parseApprovalPolicy(JSON.parse(JSON.stringify(once))), once);
});

test('durations accept text units and milliseconds, and refuse anything else', (t) => {
  const policy = parseApprovalPolicy({ ...TEST_POLICY_INPUT, deadline: '2d', maxQuoteAge: 90_000 });
  t.is(policy.deadline, 48 * HOUR);
  t.is(policy.maxQuoteAge, 90_000);
  for (const bad of ['3 days', '-1h', '0s', 1.5, 0, 'soon']) {
    const error = policyErrorFor({ ...TEST_POLICY_INPUT, deadline: bad });
    t.deepEqual(paths(error), ['deadline'], `deadline ${String(bad)}`);
    t.regex(error.message, /deadline: must be a positive whole number of milliseconds/);
  }
});

test('structural errors name each field and its rule', (t) => {
  const error = policyErrorFor({
    ...TEST_POLICY_INPUT,
    tiers: [{ name: 'x', roles: [], approvals: 0 }],
    autoApproveBelow: { usd: 5 },
    surprise: true,
  });
  t.true(paths(error).includes('tiers[0].roles'));
  t.true(paths(error).includes('tiers[0].approvals'));
  t.true(paths(error).includes('autoApproveBelow.usd'));
  t.regex(error.message, /tiers\[0\]\.roles: must name at least one approver role/);
  t.regex(error.message, /surprise/, 'an unknown key (a typo) is refused, not ignored');
});

test('tiers must rise in order and only the last is open-ended', (t) => {
  const tiers: ApprovalPolicyInput['tiers'] = [
    { name: 'a', roles: ['r'], approvals: 1, upTo: { USD: 900, AUD: 2000 } },
    { name: 'b', roles: ['r'], approvals: 1, upTo: { USD: 800, AUD: 3000 } },
    { name: 'b', roles: ['r'], approvals: 1, upTo: { USD: 9000, AUD: 9000 } },
  ];
  const error = policyErrorFor({ ...TEST_POLICY_INPUT, tiers });
  t.deepEqual(paths(error).sort(), ['tiers[0].upTo.USD', 'tiers[1].upTo.USD', 'tiers[2].name', 'tiers[2].upTo'].sort());
  t.regex(error.message, /tiers\[0\]\.upTo\.USD: must be at least autoApproveBelow\.USD \(1000\)/);
  t.regex(error.message, /tiers\[1\]\.upTo\.USD: must be greater than tiers\[0\]\.upTo\.USD \(900\)/);
});

test('every lower tier needs a limit for each currency with an auto-approve line, and only those', (t) => {
  const error = policyErrorFor({
    ...TEST_POLICY_INPUT,
    tiers: [
      { name: 'a', roles: ['r'], approvals: 1, upTo: { USD: 5000, EUR: 10 } },
      { name: 'b', roles: ['r'], approvals: 1 },
    ],
  });
  t.deepEqual(paths(error).sort(), ['tiers[0].upTo.AUD', 'tiers[0].upTo.EUR']);
  const missing = policyErrorFor({
    ...TEST_POLICY_INPUT,
    tiers: [
      { name: 'a', roles: ['r'], approvals: 1 },
      { name: 'b', roles: ['r'], approvals: 1 },
    ],
  });
  t.deepEqual(paths(missing), ['tiers[0].upTo']);
});

test('reminders must fall inside the round and stay few', (t) => {
  const early = policyErrorFor({ ...TEST_POLICY_INPUT, reminders: { beforeDeadline: ['1h', '72h'] } });
  t.deepEqual(paths(early), ['reminders.beforeDeadline[1]']);
  const many = policyErrorFor({ ...TEST_POLICY_INPUT, reminders: { every: '1h' } });
  t.deepEqual(paths(many), ['reminders.every']);
  t.notThrows(() => parseApprovalPolicy({ ...TEST_POLICY_INPUT, reminders: { every: '12h' } }));
});

test('without overrides the loader returns the defaults, versioned "default", and reads nothing', (t) => {
  const inForce = loadApprovalPolicies({}, noFile);
  t.is(inForce.policies, defaultApprovalPolicies());
  t.is(inForce.version, 'default');
  t.is(inForce.source, 'defaults');
});

test('an override document may carry a version label; without one it is "unversioned"', (t) => {
  const labelled = loadApprovalPolicies(
    { MVE_APPROVAL_POLICY: JSON.stringify({ version: '2026-Q4', production: TEST_POLICY_INPUT }) },
    noFile,
  );
  t.is(labelled.version, '2026-Q4');
  t.is(labelled.source, 'MVE_APPROVAL_POLICY');
  t.is(
    loadApprovalPolicies({ MVE_APPROVAL_POLICY: JSON.stringify({ production: TEST_POLICY_INPUT }) }, noFile).version,
    'unversioned',
  );
  const blank = t.throws(
    () => loadApprovalPolicies({ MVE_APPROVAL_POLICY: JSON.stringify({ version: ' ' }) }, noFile),
    { instanceOf: ApprovalPolicyError },
  );
  t.regex(blank.message, /version: must not be empty/);
});

test('an override from the environment replaces only the environment it names, whole', (t) => {
  const { policies } = loadApprovalPolicies(
    { MVE_APPROVAL_POLICY: JSON.stringify({ production: TEST_POLICY_INPUT }) },
    noFile,
  );
  t.deepEqual(policies.staging, defaultApprovalPolicies().staging);
  t.is(policies.production.autoApproveBelow.USD, 1000);
  t.false('EUR' in policies.production.autoApproveBelow, 'no field-by-field merge with the default');
});

test('an override from a file is read through the injected reader', (t) => {
  const read: string[] = [];
  const { policies } = loadApprovalPolicies({ MVE_APPROVAL_POLICY_FILE: '/etc/mve/policy.json' }, (path) => {
    read.push(path);
    return JSON.stringify({ staging: { ...TEST_POLICY_INPUT, alwaysRequireHuman: true } });
  });
  t.deepEqual(read, ['/etc/mve/policy.json']);
  t.true(policies.staging.alwaysRequireHuman);
  t.deepEqual(policies.production, defaultApprovalPolicies().production);
});

test('loader errors name the source, the field path and the rule', (t) => {
  const invalid = t.throws(
    () =>
      loadApprovalPolicies(
        { MVE_APPROVAL_POLICY: JSON.stringify({ production: { ...TEST_POLICY_INPUT, maxQuoteAge: 'soon' } }) },
        noFile,
      ),
    { instanceOf: ApprovalPolicyError },
  );
  t.regex(invalid.message, /\(MVE_APPROVAL_POLICY\): production\.maxQuoteAge: must be a positive whole number/);

  const unknownEnvironment = t.throws(
    () => loadApprovalPolicies({ MVE_APPROVAL_POLICY: JSON.stringify({ prod: TEST_POLICY_INPUT }) }, noFile),
    { instanceOf: ApprovalPolicyError },
  );
  t.regex(unknownEnvironment.message, /prod/);

  const notJson = t.throws(() => loadApprovalPolicies({ MVE_APPROVAL_POLICY_FILE: 'p.json' }, () => '{ nope'), {
    instanceOf: ApprovalPolicyError,
  });
  t.regex(notJson.message, /\(file p\.json\): \(document\): must be JSON/);

  const unreadable = t.throws(
    () =>
      loadApprovalPolicies({ MVE_APPROVAL_POLICY_FILE: 'missing.json' }, () => {
        throw new Error('ENOENT');
      }),
    { instanceOf: ApprovalPolicyError },
  );
  t.regex(unreadable.message, /missing\.json.*cannot be read: ENOENT/);

  const both = t.throws(
    () => loadApprovalPolicies({ MVE_APPROVAL_POLICY_FILE: 'p.json', MVE_APPROVAL_POLICY: '{}' }, noFile),
    { instanceOf: ApprovalPolicyError },
  );
  t.regex(both.message, /set only one of MVE_APPROVAL_POLICY_FILE and MVE_APPROVAL_POLICY/);
});

test('the production example in docs/approval-policy.md is the shipped default', async (t) => {
  const doc = await readFile(new URL('../../docs/approval-policy.md', import.meta.url), 'utf8');
  const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
  t.truthy(example, 'the document has a JSON example');
  const { policies } = loadApprovalPolicies({ MVE_APPROVAL_POLICY: example! }, noFile);
  t.deepEqual(policies.production, defaultApprovalPolicies().production);
});

/** TEST_POLICY_INPUT with two teams, one with a budget in each kind. */
const TEAMED: ApprovalPolicyInput = {
  ...TEST_POLICY_INPUT,
  teams: [
    { id: 'network', name: 'Network engineering', budget: { monthlyNew: { AUD: 5000 }, runRateCap: { AUD: 20000 } } },
    { id: 'sec-ops', name: 'Security operations' },
  ],
  budgetTimeZone: 'Australia/Sydney',
  overBudget: { tier: 'director' },
};

test('a policy without teams hashes as it did before teams existed', (t) => {
  const hash = (policy: object) => createHash('sha256').update(canonicalJson(policy)).digest('hex');
  const { staging, production } = defaultApprovalPolicies();
  t.false('teams' in production || 'budgetTimeZone' in production || 'overBudget' in production);
  t.is(hash(staging), '9a7bac97d59ef64df97ca0ecccb4de71d8416e3dfa8e3e2de8405a2aaef4decc');
  t.is(hash(production), '313259df596567c215e969086edf9daa056f3e460838eac25add7e57db2291c8');
});

test('teams with budgets, their time zone and the over-budget rule parse, and parse again the same', (t) => {
  const policy = parseApprovalPolicy(TEAMED);
  t.deepEqual(policy.teams?.[0].budget, { monthlyNew: { AUD: 5000 }, runRateCap: { AUD: 20000 } });
  t.is(policy.budgetTimeZone, 'Australia/Sydney');
  t.deepEqual(policy.overBudget, { tier: 'director' });
  t.deepEqual(parseApprovalPolicy(JSON.parse(JSON.stringify(policy))), policy);
  t.is(parseApprovalPolicy({ ...TEAMED, overBudget: 'refuse' }).overBudget, 'refuse');
  const unbudgeted = { ...TEAMED, teams: [{ id: 'sec-ops', name: 'Security operations' }], overBudget: undefined };
  t.deepEqual(parseApprovalPolicy(unbudgeted).teams, [{ id: 'sec-ops', name: 'Security operations' }]);
});

/** TEAMED with other teams, and no over-budget rule (which needs a team with a budget). */
const withTeams = (teams: unknown[]) => ({ ...TEAMED, teams, overBudget: undefined });

test('team errors name the field and the rule', (t) => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['empty teams', withTeams([]), 'teams', /must name at least one team/],
    ['a bad id', withTeams([{ id: 'net work', name: 'N' }]), 'teams[0].id', /letters, digits and \. _ -/],
    [
      'a duplicate id',
      { ...TEAMED, teams: [...TEAMED.teams!, { id: 'network', name: 'Again' }] },
      'teams[2].id',
      /must be unique; "network" is used twice/,
    ],
    ['a blank name', withTeams([{ id: 'a', name: ' ' }]), 'teams[0].name', /must not be empty/],
    [
      'an empty budget',
      { ...TEAMED, teams: [{ id: 'a', name: 'A', budget: {} }] },
      'teams[0].budget',
      /must name monthlyNew, runRateCap or both/,
    ],
    [
      'a lower-case currency',
      { ...TEAMED, teams: [{ id: 'a', name: 'A', budget: { monthlyNew: { aud: 1 } } }] },
      'teams[0].budget.monthlyNew.aud',
      /three-letter upper-case currency code/,
    ],
    [
      'a negative amount',
      { ...TEAMED, teams: [{ id: 'a', name: 'A', budget: { runRateCap: { AUD: -1 } } }] },
      'teams[0].budget.runRateCap.AUD',
      /./,
    ],
    ['an unknown time zone', { ...TEAMED, budgetTimeZone: 'Mars/Olympus' }, 'budgetTimeZone', /IANA time zone/],
    ['no time zone', { ...TEAMED, budgetTimeZone: undefined }, 'budgetTimeZone', /is required with teams/],
    ['an unknown tier', { ...TEAMED, overBudget: { tier: 'cfo' } }, 'overBudget.tier', /"cfo" is none/],
    ['neither tier nor refuse', { ...TEAMED, overBudget: 'escalate' }, 'overBudget', /./],
    ['budgets and no rule', { ...TEAMED, overBudget: undefined }, 'overBudget', /is required when a team has a budget/],
    [
      'a rule and no budget',
      { ...TEAMED, teams: [{ id: 'a', name: 'A' }] },
      'overBudget',
      /has no effect: no team has a budget/,
    ],
    [
      'a time zone without teams',
      { ...TEST_POLICY_INPUT, budgetTimeZone: 'UTC' },
      'budgetTimeZone',
      /only for a policy with teams/,
    ],
    [
      'a rule without teams',
      { ...TEST_POLICY_INPUT, overBudget: 'refuse' },
      'overBudget',
      /only for a policy with teams/,
    ],
    ['an unknown key', withTeams([{ id: 'a', name: 'A', cap: 1 }]), 'teams[0]', /cap/],
  ];
  for (const [name, input, path, rule] of cases) {
    const error = policyErrorFor(input);
    t.deepEqual(paths(error), [path], name);
    t.regex(error.issues[0].message, rule, name);
    t.true(error.message.includes(`${path}: `), name);
  }
});

test('the teams example in docs/approval-policy.md parses as part of the production policy', async (t) => {
  const doc = await readFile(new URL('../../docs/approval-policy.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Teams and budgets'));
  const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]) as object;
  const policy = parseApprovalPolicy({ ...defaultApprovalPolicies().production, ...example });
  t.deepEqual(
    policy.teams?.map((team) => team.id),
    ['network', 'sec-ops', 'lab'],
  );
  t.deepEqual(policy.overBudget, { tier: 'finance-senior' });
});
