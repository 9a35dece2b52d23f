import type { Client } from '@temporalio/client';
import type { Keyring } from '../../../codec/index.js';
import type { ApprovalPolicies } from '../../../domain/approval/index.js';
import type { Repository } from '../../../infra/db/index.js';
import type { OrderIntake } from '../intake.js';
import type { LiveReads } from '../live-reads.js';
import type { OrderClient } from '../order-client.js';

/** What the order service stands on, built once by whoever runs it (`serve`, `dev`, tests). */
export interface OrderServiceParts {
  orders: OrderClient;
  intake: OrderIntake;
  repository: Repository;
  /**
   * The Temporal client (with the encrypting codec) the order client uses: read deadlines, history, and ending the
   * workflow of an order cancelled before a worker started it.
   */
  temporal: Client;
  /** The payload codec keys, for decoding history for ops. */
  codecKeys: Keyring;
  /** This server's bound on reads of orders at Temporal (MVE_LIVE_READS); past it, reads answer from the records. */
  liveReads: LiveReads;
  /**
   * The approval policies the workers enforce (the same MVE_APPROVAL_POLICY_FILE / MVE_APPROVAL_POLICY): their teams,
   * budgets and time zones frame the commitments. Default: the shipped policies, which list no teams.
   */
  policies?: ApprovalPolicies;
  log: (line: string) => void;
}
