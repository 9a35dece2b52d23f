import { createApproversRepository, type ApproversRepository } from './approvers-repository.js';
import type { Sql } from './connection.js';
import { createConsoleSessionsRepository, type ConsoleSessionsRepository } from './console-sessions-repository.js';
import { createEvidenceRepository, type EvidenceRepository } from './evidence/index.js';
import { createOrdersRepository, type OrdersRepository } from './orders/index.js';
import { createTicketsRepository, type TicketsRepository } from './tickets-repository.js';
import { createTokensRepository, type TokensRepository } from './tokens-repository.js';

/** Everything the app stores in Postgres. Built once per process around one pool and injected. */
export type Repository = OrdersRepository &
  ApproversRepository &
  TokensRepository &
  TicketsRepository &
  EvidenceRepository &
  ConsoleSessionsRepository;

export function createRepository(sql: Sql): Repository {
  return {
    ...createOrdersRepository(sql),
    ...createApproversRepository(sql),
    ...createTokensRepository(sql),
    ...createTicketsRepository(sql),
    ...createEvidenceRepository(sql),
    ...createConsoleSessionsRepository(sql),
  };
}
