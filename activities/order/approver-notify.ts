/**
 * Tells approvers that an order waits for them: a Slack-compatible message (`text` + `blocks`) POSTed to the
 * webhook the workers are configured with (MVE_APPROVER_WEBHOOK_URL), signed like the ticket-system callbacks
 * (MVE_CALLBACK_SECRET, headers x-mve-timestamp and x-mve-signature) and sent only where the callback policy
 * allows. The link goes to the order's console page (MVE_CONSOLE_URL), which shows the order; deciding there
 * takes a signed-in POST, so a link scanner that follows it changes nothing.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { orderIdOfWorkflow } from '../../domain/index.js';
import { postSigned, type NotifyDeps } from './notify.js';
import { currentRun } from './order-requests.js';
import type { ApproverMessage, OrderActivities } from '../../workflows/order/activity-types.js';

export const APPROVER_WEBHOOK_URL_VARIABLE = 'MVE_APPROVER_WEBHOOK_URL';
export const CONSOLE_URL_VARIABLE = 'MVE_CONSOLE_URL';

export interface ApproverNotifyDeps extends NotifyDeps {
  /** Undefined: approvers are not told (nothing is sent, and orders schedule nothing for it). */
  approverWebhookUrl: string | undefined;
  /** The console's base URL, for the link to the order page; undefined: the message names the ticket only. */
  consoleUrl: string | undefined;
}

/** The order page in the console: `<consoleUrl>/orders/<orderId>` (a ticket id alone may name several orders). */
export function orderPageUrl(consoleUrl: string, orderId: string): string {
  return `${consoleUrl.replace(/\/+$/, '')}/orders/${encodeURIComponent(orderId)}`;
}

/** Slack mrkdwn needs only these three escaped. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function money(amount: number, currency: string): string {
  return `${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
}

function deadlineText(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export interface SlackMessage {
  text: string;
  blocks: Array<Record<string, unknown>>;
}

/** The message approvers see (Slack incoming-webhook JSON; other chat tools read `text`) about the order `orderId`. */
export function approverSlackMessage(
  message: ApproverMessage,
  orderId: string,
  consoleUrl: string | undefined,
): SlackMessage {
  const link = consoleUrl ? orderPageUrl(consoleUrl, orderId) : undefined;
  const price = money(message.quote.monthlyRate, message.quote.currency);
  const lead =
    message.event === 'approval-reminder'
      ? `Reminder${message.reminder ? ` ${message.reminder}` : ''}: order`
      : 'Order';
  const needed = `${message.stillNeeded} more approval${message.stillNeeded === 1 ? '' : 's'} needed (tier "${message.tier.name}", role ${message.tier.roles.join(' or ')})`;
  const text = [
    `${lead} ${message.ticketId} from ${message.requestedBy} waits for approval: ${price} a month.`,
    `${needed}, by ${deadlineText(message.deadline)}.`,
    link ? `Open the order: ${link}` : `See it with: mve-orders status ${orderId}`,
  ].join(' ');
  const ticket = link ? `<${link}|${escape(message.ticketId)}>` : `*${escape(message.ticketId)}*`;
  const blocks: Array<Record<string, unknown>> = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `${escape(lead)} ${ticket} waits for approval${message.summary ? `: ${escape(message.summary)}` : ''}`,
      },
      fields: [
        { type: 'mrkdwn', text: `*Ticket*\n${escape(message.ticketId)} (${escape(message.environment)})` },
        { type: 'mrkdwn', text: `*Requester*\n${escape(message.requestedBy)}` },
        { type: 'mrkdwn', text: `*Monthly price*\n${escape(price)}` },
        { type: 'mrkdwn', text: `*Tier*\n${escape(message.tier.name)} (${escape(message.tier.roles.join(' or '))})` },
        { type: 'mrkdwn', text: `*Approvals still needed*\n${message.stillNeeded} of ${message.tier.approvals}` },
        { type: 'mrkdwn', text: `*Deadline*\n${escape(deadlineText(message.deadline))}` },
      ],
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: link
            ? `Review and decide on the order page: ${link}`
            : `See it with \`mve-orders status ${escape(orderId)}\``,
        },
      ],
    },
  ];
  return { text, blocks };
}

export function createApproverNotifyActivity(deps: ApproverNotifyDeps): Pick<OrderActivities, 'notifyApprovers'> {
  return {
    async notifyApprovers(message) {
      if (!deps.approverWebhookUrl) return;
      const callbackSecret = deps.callbackSecret;
      if (!callbackSecret) {
        throw ApplicationFailure.nonRetryable(
          `MVE_CALLBACK_SECRET is not set, so messages to ${APPROVER_WEBHOOK_URL_VARIABLE} cannot be signed and are not sent`,
          'CallbackNotConfigured',
        );
      }
      const what =
        message.event === 'approval-reminder' ? `reminder ${message.reminder ?? ''}`.trim() : 'the approval request';
      await postSigned(
        { ...deps, callbackSecret },
        deps.approverWebhookUrl,
        approverSlackMessage(message, orderIdOfWorkflow(currentRun().workflowId), deps.consoleUrl),
        {
          receiver: "the approvers' webhook",
          what: `${what} for ${message.ticketId}`,
        },
      );
    },
  };
}
