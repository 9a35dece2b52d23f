import test from 'ava';
import { budgetFit, overBudgetReason, type BudgetStanding } from '../../domain/approval/index.js';

const standing: BudgetStanding = {
  team: 'network',
  currency: 'AUD',
  runRate: '40000',
  approvedNotBought: '3000.5',
  approvedThisMonth: '11000.25',
  budget: { monthlyNew: '15000', runRateCap: '50000' },
};

test('an order that brings a figure exactly to its budget fits, with nothing left', (t) => {
  const fit = budgetFit(standing, 3999.75);
  t.deepEqual(fit.overruns, []);
  t.deepEqual(fit.remainingAfter, { monthlyNew: '0', runRateCap: '2999.75' });
  t.is(fit.price, '3999.75');
});

test('one cent under the budget fits; one cent over is over, by one cent', (t) => {
  t.deepEqual(budgetFit(standing, 3999.74).overruns, []);
  t.is(budgetFit(standing, 3999.74).remainingAfter.monthlyNew, '0.01');
  const over = budgetFit(standing, 3999.76);
  t.deepEqual(over.overruns, [{ limit: 'monthlyNew', budget: '15000', withOrder: '15000.01', over: '0.01' }]);
  t.is(over.remainingAfter.monthlyNew, '-0.01');
});

test('the run-rate cap counts running orders, approved ones not bought yet, and this one', (t) => {
  const fit = budgetFit({ ...standing, budget: { monthlyNew: null, runRateCap: '50000' } }, 6999.51);
  t.deepEqual(fit.overruns, [{ limit: 'runRateCap', budget: '50000', withOrder: '50000.01', over: '0.01' }]);
  t.deepEqual(fit.remainingAfter, { monthlyNew: null, runRateCap: '-0.01' });
  t.is(
    overBudgetReason(fit),
    '6999.51 AUD a month would take team network over its run-rate cap of 50000 AUD (50000.01 AUD with this order, 0.01 AUD over)',
  );
});

test('both limits passed are both named; sums keep every cent, as decimals', (t) => {
  const fit = budgetFit(standing, 10000.1);
  t.deepEqual(
    fit.overruns.map((overrun) => overrun.limit),
    ['monthlyNew', 'runRateCap'],
  );
  t.regex(overBudgetReason(fit), /budget for new commitments this month of 15000 AUD .* and its run-rate cap/);
  t.is(fit.remainingAfter.monthlyNew, '-6000.35');
});

test('a team without a limit in the currency is never over it', (t) => {
  const fit = budgetFit({ ...standing, budget: { monthlyNew: null, runRateCap: null } }, 1e9);
  t.deepEqual(fit.overruns, []);
  t.deepEqual(fit.remainingAfter, { monthlyNew: null, runRateCap: null });
});
