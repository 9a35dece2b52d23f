import type { Command } from 'commander';
import { registerApprovalsCommand } from './commands/approvals.js';
import { registerApproversCommand } from './commands/approvers.js';
import { registerCancelCommand } from './commands/cancel.js';
import { registerCheckCommand } from './commands/check.js';
import { registerHistoryCommand } from './commands/history.js';
import { registerImagesCommand } from './commands/images.js';
import { registerLocationsCommand } from './commands/locations.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerOrdersCommand } from './commands/orders.js';
import { registerRecoverCommand } from './commands/recover.js';
import { registerResolveBuyCommand } from './commands/resolve-buy.js';
import { registerServeCommand } from './commands/serve.js';
import { registerStatusCommand } from './commands/status.js';
import { registerSubmitCommand } from './commands/submit.js';
import { registerTokensCommand } from './commands/tokens.js';
import { registerApproveCommand, registerRejectCommand } from './commands/vote.js';
import { registerWorkerCommand } from './commands/worker.js';

/**
 * The commands of a machine of your own, `dev` and `sim`: development tooling (tooling/commands), which the product
 * never imports. The entry point (bin/cli.ts) hands them in; without them the command serves the product alone.
 */
export interface ToolingCommands {
  registerDevCommand(program: Command): void;
  registerSimCommand(program: Command): void;
}

/**
 * Every subcommand lives in its own module under ./commands/ and is registered here, in help order. Registering
 * loads only what the help needs: each command imports what it runs (the engine, the database, the simulator)
 * inside its action, so that `--help` and the order commands start in a fraction of a second.
 */
export function registerCommands(program: Command, tooling?: ToolingCommands): void {
  tooling?.registerDevCommand(program);
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
  tooling?.registerSimCommand(program);
  registerLocationsCommand(program);
  registerImagesCommand(program);
  registerCheckCommand(program);
  registerMigrateCommand(program);
  registerApproversCommand(program);
  registerTokensCommand(program);
}
