// Why the order service refused a caller, as types, not answers: the HTTP API maps each to its status in one place
// (client/http/errors.ts). Nothing changed when one is thrown.

/** One problem with what the caller sent: where (a path into the body, query or URL) and which rule it breaks. */
export interface RefusalDetail {
  path: string;
  message: string;
}

/** A refusal of the service: `code` is stable for programs, the message is for people, `details` name the fields. */
export abstract class ServiceRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: RefusalDetail[] = [],
  ) {
    super(message);
  }
}

/** The caller's roles or ownership do not allow the action. */
export class AccessRefused extends ServiceRefusal {
  override readonly name = 'AccessRefused';
  constructor(message: string, details: RefusalDetail[] = []) {
    super('FORBIDDEN', message, details);
  }
}

/** No order by that name the caller may see: one they may not see is answered the same, so none is revealed. */
export class NoSuchOrder extends ServiceRefusal {
  override readonly name = 'NoSuchOrder';
  constructor(name: string) {
    super('NOT_FOUND', `no order ${name}`);
  }
}

/** What the caller sent breaks a rule of its form (`INVALID_REQUEST` of an order request, `INVALID_INPUT` else). */
export class InvalidInput extends ServiceRefusal {
  override readonly name = 'InvalidInput';
}

/** The order is not in a state that takes the action, or the name given is ambiguous: `code` says which. */
export class OrderConflict extends ServiceRefusal {
  override readonly name = 'OrderConflict';
}

/**
 * The order's team is not one its environment's policy knows (TEAM_UNKNOWN): the request's `costCentre` names none of
 * them, or, without it, the requester has no team of the policy's in the directory. Nothing was registered.
 */
export class UnknownTeam extends ServiceRefusal {
  override readonly name = 'UnknownTeam';
  constructor(rule: string) {
    super('TEAM_UNKNOWN', `costCentre: ${rule}`, [{ path: 'costCentre', message: rule }]);
  }
}

/** A ticket system named a requester the approver directory does not know (REQUESTER_UNKNOWN). */
export class UnknownRequester extends ServiceRefusal {
  override readonly name = 'UnknownRequester';
  constructor(message: string, details: RefusalDetail[]) {
    super('REQUESTER_UNKNOWN', message, details);
  }
}
