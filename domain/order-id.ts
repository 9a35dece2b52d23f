import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { identityKey } from './approval/index.js';

/**
 * How an order is named. A ticket id is the submitting system's own name for the order, unique only among that
 * system's tickets (two ticket systems may both send `INC-1042`), so the order id adds the submitter's namespace:
 * `<ticketId>.<10 hex digits of the SHA-256 of the submitter's identity key>`. It is deterministic, so a re-sent
 * ticket names the same workflow, and another caller cannot take a submitter's ticket id.
 *
 * Orders registered before namespaces keep their ticket id as their order id. Pure (no Node APIs): the workers name
 * the order in approver messages from their workflow id.
 */
const WORKFLOW_PREFIX = 'mve-order-';
const NAMESPACE_DIGITS = 10;

export function orderIdFor(submittedBy: string, ticketId: string): string {
  return `${ticketId}.${submitterNamespace(submittedBy)}`;
}

/** The submitter's namespace: the same for every spelling of the same identity (`Ticket-Bot`, `ticket-bot`). */
export function submitterNamespace(submittedBy: string): string {
  return bytesToHex(sha256(utf8ToBytes(identityKey(submittedBy)))).slice(0, NAMESPACE_DIGITS);
}

/** The order's workflow id: one order is one workflow id forever. */
export function orderWorkflowId(orderId: string): string {
  return `${WORKFLOW_PREFIX}${orderId}`;
}

/** The order id a workflow id names (the inverse of `orderWorkflowId`). */
export function orderIdOfWorkflow(workflowId: string): string {
  return workflowId.startsWith(WORKFLOW_PREFIX) ? workflowId.slice(WORKFLOW_PREFIX.length) : workflowId;
}
