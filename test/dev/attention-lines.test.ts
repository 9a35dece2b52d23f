// The dev terminal's line for each order event that needs a person, for the events the dev test does not bring about
// (an expiry after 72 h, a product that never goes LIVE): one line, the order, the reason, the next step and where.
import test from 'ava';
import { ATTENTION_STATES, describeAttention, type AttentionEvent } from '../../tooling/dev/attention-lines.js';

const places = {
  consoleUrl: 'http://127.0.0.1:8080/',
  simulatorUrl: 'http://127.0.0.1:4010',
  users: [
    { id: 'alice', roles: ['requester'] },
    { id: 'fiona', roles: ['finance-approver'] },
    { id: 'dave', roles: ['finance-director'] },
    { id: 'olga', roles: ['ops'] },
  ],
};

const event = (changes: Partial<AttentionEvent>): AttentionEvent => ({
  orderId: 'CHG-1.2bd806c97f',
  state: 'FAILED',
  reason: 'something',
  details: {},
  requestedBy: 'alice',
  quote: undefined,
  productUid: undefined,
  ...changes,
});

test('every event that needs a person is one line naming the order, the reason and the order page', (t) => {
  for (const state of ATTENTION_STATES) {
    const line = describeAttention(event({ state, reason: 'first line\n  second line.' }), places);
    t.false(line.includes('\n'), state);
    t.true(line.startsWith(`[order] CHG-1.2bd806c97f ${state}: first line second line. Next: `), line);
    t.true(line.includes('http://127.0.0.1:8080/orders/CHG-1.2bd806c97f'), line);
  }
});

test('an event recorded without a reason still reads as a sentence', (t) => {
  t.true(describeAttention(event({ reason: ' ' }), places).startsWith('[order] CHG-1.2bd806c97f FAILED. Next: '));
});

test('an expired order says to submit again; a product not LIVE names the product and the portal', (t) => {
  t.regex(
    describeAttention(
      event({ state: 'EXPIRED', reason: 'no decision by the deadline 2026-12-02T14:00:00.000Z' }),
      places,
    ),
    /EXPIRED: no decision by the deadline 2026-12-02T14:00:00\.000Z\. Next: nobody decided in time; submit again under a new ticket id/,
  );
  const stalled = describeAttention(
    event({ state: 'PROVISIONING_STALLED', productUid: 'f3c1a2b4-0000-4000-8000-000000000001' }),
    places,
  );
  t.regex(stalled, /Next: ops take up product f3c1a2b4-0000-4000-8000-000000000001 with the provider/);
  t.true(stalled.includes('http://127.0.0.1:4010/_sim/state'), stalled);
});

test("the approver named holds one of the tier's roles and is not the requester", (t) => {
  const line = (requestedBy: string, roles: string[]) =>
    describeAttention(
      event({
        state: 'AWAITING_APPROVAL',
        requestedBy,
        details: { roles, approvals: 2, deadline: '2026-12-02T14:00:00.000Z' },
        quote: { monthlyRate: 12000, currency: 'AUD' },
      }),
      places,
    );
  const director = line('alice', ['finance-director']);
  t.regex(director, /Next: 2 approvals from finance-director by 2026-12-02T14:00:00\.000Z: decide at /);
  t.regex(director, /`npx mve-orders approve CHG-1\.2bd806c97f --rate 12000 --currency AUD --as dave`$/);
  // fiona asked for it herself: she may not approve it.
  t.regex(line('fiona', ['finance-approver', 'finance-director']), /--as dave`$/);
});

test('an order no one but its requester may approve: the line says to give someone the role, not to approve', (t) => {
  const said = describeAttention(
    event({
      state: 'AWAITING_APPROVAL',
      requestedBy: 'pat',
      details: { roles: ['finance-director'], approvals: 2, eligibleApprovers: 1 },
      quote: { monthlyRate: 12000, currency: 'AUD' },
    }),
    places,
  );
  t.regex(said, /Next: 2 approvals from finance-director, but only 1 person other than the requester may give one: /);
  t.regex(
    said,
    /`npx mve-orders approvers add <id> --roles finance-director --database-url <databaseUrl of dev\.json>`/,
  );
  t.notRegex(said, /mve-orders approve /);
});
