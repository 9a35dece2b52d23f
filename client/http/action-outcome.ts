import type { FastifyRequest } from 'fastify';

/** The human actions: each reaches the order once sent (an update to its workflow, or the records' cancel). */
export type ActionName = 'approve' | 'reject' | 'cancel' | 'resolve-buy';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route carrying a human action: its 503s say whether the action may have taken effect. */
    action?: ActionName;
  }
}

const NOUNS: Record<ActionName, string> = {
  approve: 'approval',
  reject: 'rejection',
  cancel: 'cancel',
  'resolve-buy': 'resolution',
};

interface Progress {
  sent: boolean;
  /** Answered 503 before it was sent: it must never be sent after, or the answer would be untrue. */
  withdrawn: boolean;
}

const progress = new WeakMap<FastifyRequest, Progress>();

/** The action of a request answered before its handler sent it: the handler, still running, stops here. */
export class ActionWithdrawnError extends Error {
  override readonly name = 'ActionWithdrawnError';
}

/**
 * The gate a route's handler calls right before its action leaves. It records that the action was sent, or, when the
 * request was already answered 503 saying it was not (its time ran out first), refuses to let it leave.
 */
export function actionGate(request: FastifyRequest): () => void {
  const entry: Progress = { sent: false, withdrawn: false };
  progress.set(request, entry);
  return () => {
    if (entry.withdrawn) throw new ActionWithdrawnError('answered before it was sent: not sending it');
    entry.sent = true;
  };
}

export interface ActionOutcome {
  mayHaveTakenEffect: boolean;
  /** What the caller should do, in words. */
  explanation: string;
}

/**
 * What a 503 to an action's request says of the action (undefined on other routes): it may have taken effect when it
 * was sent and no answer came back (`answered`: the order or Temporal said it was not taken). From then on the action
 * cannot be sent, so "not sent" stays true.
 */
export function actionOutcome(request: FastifyRequest, answered = false): ActionOutcome | undefined {
  const action = request.routeOptions.config?.action;
  if (!action) return undefined;
  const entry = progress.get(request) ?? { sent: false, withdrawn: false };
  if (!entry.sent) entry.withdrawn = true;
  const noun = NOUNS[action];
  if (entry.sent && !answered) {
    return {
      mayHaveTakenEffect: true,
      explanation: `the ${noun} was sent and may have taken effect: read the order, or send the same request again (a repeat is answered with the order's state, saying it was already done)`,
    };
  }
  return { mayHaveTakenEffect: false, explanation: `the ${noun} did not take effect: nothing changed` };
}
