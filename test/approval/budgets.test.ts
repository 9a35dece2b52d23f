import test from 'ava';
import { budgetTimeZone, calendarMonth, teamBudgets, type ApprovalTeam } from '../../domain/approval/index.js';

test("a policy's budgets, one entry per team and currency either limit names", (t) => {
  const teams: ApprovalTeam[] = [
    { id: 'network', name: 'N', budget: { monthlyNew: { USD: 8000, AUD: 12000 }, runRateCap: { AUD: 60000 } } },
    { id: 'lab', name: 'L' },
    { id: 'sec-ops', name: 'S', budget: { runRateCap: { EUR: 0.5 } } },
  ];
  t.deepEqual(teamBudgets({ teams }), [
    { team: 'network', currency: 'AUD', monthlyNew: 12000, runRateCap: 60000 },
    { team: 'network', currency: 'USD', monthlyNew: 8000, runRateCap: null },
    { team: 'sec-ops', currency: 'EUR', monthlyNew: null, runRateCap: 0.5 },
  ]);
  t.deepEqual(teamBudgets({}), []);
});

test("the calendar month of a moment is the budget time zone's", (t) => {
  const sydney = 'Australia/Sydney';
  t.is(calendarMonth(sydney, Date.parse('2026-01-31T12:59:59.999Z')), '2026-01');
  t.is(calendarMonth(sydney, Date.parse('2026-01-31T13:00:00.000Z')), '2026-02');
  t.is(calendarMonth('UTC', Date.parse('2026-01-31T13:00:00.000Z')), '2026-01');
  t.is(calendarMonth('America/Los_Angeles', Date.parse('2026-01-01T07:59:59.000Z')), '2025-12');
  t.is(budgetTimeZone({}), 'UTC');
  t.is(budgetTimeZone({ budgetTimeZone: sydney }), sydney);
});
