import type { Command } from 'commander';
import { registerApprovalsCommand } from './commands/approvals.js';
import { registerApproversCommand } from './commands/approvers.js';
import { registerCancelCommand } from './commands/cancel.js';
import { registerCheckCommand } from './commands/check.js';
import { registerDevCommand } from './commands/dev.js';
import { registerHistoryCommand } from './commands/history.js';
import { registerImagesCommand } from './commands/images.js';
import { registerLocationsCommand } from './commands/locations.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerOrdersCommand } from './commands/orders.js';
import { registerRecoverCommand } from './commands/recover.js';
import { registerResolveBuyCommand } from './commands/resolve-buy.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSimCommand } from './commands/sim.js';
import { registerStatusCommand } from './commands/status.js';
import { registerSubmitCommand } from './commands/submit.js';
import { registerTokensCommand } from './commands/tokens.js';
import { registerApproveCommand, registerRejectCommand } from './commands/vote.js';
import { registerWorkerCommand } from './commands/worker.js';

/**
 * Every subcommand lives in its own module under ./commands/ and is registered here, in help order. Registering
 * loads only what the help needs: each command imports what it runs (the engine, the database, the simulator)
 * inside its action, so that `--help` and the order commands start in a fraction of a second.
 */
export function registerCommands(program: Command): void {
  registerDevCommand(program);
  registerSubmitCommand(program);
  registerStatusCommand(program);
  registerHistoryCommand(program);
  registerApproveCommand(program);
  registerRejectCommand(program);
  registerCancelCommand(program);
  registerResolveBuyCommand(program);
  registerRecoverCommand(program);
  registerOrdersCommand(program);
  registerApprovalsCommand(program);
  registerWorkerCommand(program);
  registerServeCommand(program);
  registerSimCommand(program);
  registerLocationsCommand(program);
  registerImagesCommand(program);
  registerCheckCommand(program);
  registerMigrateCommand(program);
  registerApproversCommand(program);
  registerTokensCommand(program);
}
