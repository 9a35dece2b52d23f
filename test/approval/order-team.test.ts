import test from 'ava';
import { orderTeam } from '../../domain/approval/index.js';

const TEAMED = {
  teams: [
    { id: 'network', name: 'Network engineering' },
    { id: 'sec-ops', name: 'Security' },
  ],
};
const UNTEAMED = {};
const request = (costCentre?: string) => ({
  environment: 'production',
  requestedBy: 'alice',
  ...(costCentre === undefined ? {} : { costCentre }),
});

test("a costCentre of the policy's teams is the order's team, whatever the directory says", (t) => {
  t.deepEqual(orderTeam(TEAMED, request('sec-ops'), 'network'), { team: 'sec-ops' });
  t.deepEqual(orderTeam(TEAMED, request('sec-ops'), undefined), { team: 'sec-ops' });
});

test("without a costCentre, the requester's directory team, when it is one of the policy's", (t) => {
  t.deepEqual(orderTeam(TEAMED, request(), 'network'), { team: 'network' });
});

test('an unknown team is refused with the rule it breaks and the teams there are', (t) => {
  const cases: Array<[string, string | undefined, string | null | undefined, RegExp]> = [
    [
      'a costCentre not in the list',
      'Network',
      'network',
      /^"Network" is not a team of the production policy; the production policy's teams are network, sec-ops$/,
    ],
    ['no costCentre, not in the directory', undefined, undefined, /alice is not in the approver directory/],
    ['no costCentre, no directory team', undefined, null, /alice has no team in the approver directory/],
    [
      'no costCentre, a directory team the policy does not list',
      undefined,
      'lab',
      /alice's team in the approver directory, "lab", is not one of its teams/,
    ],
  ];
  for (const [name, costCentre, directoryTeam, rule] of cases) {
    const choice = orderTeam(TEAMED, request(costCentre), directoryTeam);
    t.true('refused' in choice, name);
    if (!('refused' in choice)) continue;
    t.regex(choice.refused, rule, name);
    if (costCentre === undefined) {
      t.regex(choice.refused, /^is required: the production policy charges every order to a team/, name);
      t.regex(choice.refused, /name the team in costCentre \(the production policy's teams are network, sec-ops\)/);
    }
  }
});

test('a policy without teams charges orders to none, and refuses a costCentre nothing could check', (t) => {
  t.deepEqual(orderTeam(UNTEAMED, request(), 'network'), { team: null });
  t.deepEqual(orderTeam(UNTEAMED, request('network'), 'network'), {
    refused: 'the production policy charges orders to no team; leave costCentre out',
  });
});

test('a long list of teams is cut in the refusal', (t) => {
  const teams = Array.from({ length: 25 }, (_, index) => ({ id: `team-${index}`, name: `Team ${index}` }));
  const choice = orderTeam({ teams }, request('other'), undefined);
  t.true('refused' in choice && choice.refused.endsWith('team-18, team-19 and 5 more'));
});
