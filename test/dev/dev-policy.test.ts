import { readFileSync } from 'node:fs';
import test from 'ava';
import { defaultApprovalPolicies, loadApprovalPolicies } from '../../domain/approval/index.js';
import { DEV_POLICY_FILE, engineEnv } from '../../tooling/dev/engine-env.js';

const readText = (path: string) => readFileSync(path, 'utf8');
const options = { apiEnv: {}, callbackSecret: 's', simulated: true, kindMapFile: undefined, temporalUiOrigins: [] };

test("dev's policy is the shipped staging policy with teams, one of them budgeted", (t) => {
  const loaded = loadApprovalPolicies({ MVE_APPROVAL_POLICY_FILE: DEV_POLICY_FILE }, readText);
  const { teams, budgetTimeZone, overBudget, ...rules } = loaded.policies.staging;
  t.deepEqual(
    rules,
    defaultApprovalPolicies().staging,
    'every other rule as shipped, so the docs of the defaults hold',
  );
  t.deepEqual(loaded.policies.production, defaultApprovalPolicies().production);
  t.deepEqual(
    teams?.map((team) => [team.id, team.budget !== undefined]),
    [
      ['network', false],
      ['lab', true],
    ],
  );
  t.is(budgetTimeZone, 'Australia/Sydney');
  t.deepEqual(overBudget, { tier: 'finance' });
});

test('dev runs the engine on its policy unless the caller names one', (t) => {
  t.is(engineEnv({ ...options, env: {} })['MVE_APPROVAL_POLICY_FILE'], DEV_POLICY_FILE);
  const own = engineEnv({ ...options, env: { MVE_APPROVAL_POLICY_FILE: '/etc/mve/policy.json' } });
  t.is(own['MVE_APPROVAL_POLICY_FILE'], '/etc/mve/policy.json');
  const json = engineEnv({ ...options, env: { MVE_APPROVAL_POLICY: '{}' } });
  t.is(json['MVE_APPROVAL_POLICY_FILE'], undefined, 'one of the two, as the worker requires');
});
