import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Custom search attributes the order workflow keeps current, so ops can list orders by them
 * (`OrderStatus = 'AWAITING_APPROVAL' AND Environment = 'production'`). They are plaintext in the
 * visibility store by design: never put a secret in one. Real clusters must register them once
 * (see the README); the embedded server registers them at start-up.
 */
export const ORDER_STATUS = defineSearchAttributeKey('OrderStatus', 'KEYWORD');
export const TICKET_ID = defineSearchAttributeKey('TicketId', 'KEYWORD');
export const ENVIRONMENT = defineSearchAttributeKey('Environment', 'KEYWORD');
export const MONTHLY_RATE = defineSearchAttributeKey('MonthlyRate', 'DOUBLE');

export const ORDER_SEARCH_ATTRIBUTES = [ORDER_STATUS, TICKET_ID, ENVIRONMENT, MONTHLY_RATE] as const;
