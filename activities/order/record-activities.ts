import { ApplicationFailure } from '@temporalio/activity';
import { BuyIntentRefused, createJournalWriter, type JournalWriterDeps } from './journal/index.js';
import { currentRun } from './order-requests.js';
import type { OrderActivities } from '../../workflows/order/activity-types.js';

export type RecordActivityDeps = JournalWriterDeps;

type RecordActivities = Pick<OrderActivities, 'recordJournal' | 'loadApprovers' | 'closeUnsentBuy'>;

/** Why an attempt closed by `closeUnsentBuy` was not created. */
const BUY_NOT_SENT = {
  errorClass: 'BuyNotSent',
  errorMessage: 'the buy activity was lost before its request left; nothing was sent',
};

/**
 * The journal's activity (see `createJournalWriter`): a refused buy intent fails it for good (`BuyIntentRefused`,
 * not retried); a database that is down is retried.
 */
export function createRecordActivities(deps: RecordActivityDeps): RecordActivities {
  const { repository } = deps;
  const writeJournal = createJournalWriter(deps);

  return {
    async recordJournal(input) {
      try {
        await writeJournal(currentRun(), input.entries);
      } catch (error) {
        if (error instanceof BuyIntentRefused) throw ApplicationFailure.nonRetryable(error.message, error.name);
        throw error;
      }
    },

    async closeUnsentBuy({ attempt }) {
      const { closed } = await repository.closeUnsentBuy({
        workflowId: currentRun().workflowId,
        attempt,
        ...BUY_NOT_SENT,
      });
      return closed;
    },

    async loadApprovers({ roles }) {
      const approvers = await repository.listApprovers(roles ? { activeOnly: true } : {});
      return approvers
        .filter((approver) => !roles || approver.roles.some((role) => roles.includes(role)))
        .map((approver) => ({ id: approver.id, roles: approver.roles, active: approver.active }));
    },
  };
}
