import type { Command } from 'commander';
import { registerApprovalsCommand } from './commands/approvals.js';
import { registerApproversCommand } from './commands/approvers.js';
import { registerCancelCommand } from './commands/cancel.js';
import { registerCheckCommand } from './commands/check.js';
import { registerCommitmentsCommand } from './commands/commitments.js';
import { registerHistoryCommand } from './commands/history.js';
import { registerImagesCommand } from './commands/images.js';
import { registerLocationsCommand } from './commands/locations.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { loadOrdersDetails, registerOrdersCommand, type OrdersDetails } from './commands/orders.js';
import { registerRecoverCommand } from './commands/recover.js';
import { registerResolveBuyCommand } from './commands/resolve-buy.js';
import { registerServeCommand } from './commands/serve.js';
import { registerStatusCommand } from './commands/status.js';
import { registerSubmitCommand } from './commands/submit.js';
import { loadTokensDetails, registerTokensCommand, type TokensDetails } from './commands/tokens.js';
import { registerApproveCommand, registerRejectCommand } from './commands/vote.js';
import { registerWorkerCommand } from './commands/worker.js';

/**
 * The commands of a machine of your own, `dev`, `cluster` and `sim`: development tooling (tooling/commands), which the
 * product never imports. The entry point (bin/cli.ts) hands them in; without them the command serves the product alone.
 */
export interface ToolingCommands {
  registerDevCommand(program: Command): void;
  registerClusterCommand(program: Command): void;
  registerSimCommand(program: Command): void;
}

/**
 * What the help and the argument checks of a command need from modules below the CLI (the order states, the roles,
 * the rules of ids), which would bring zod, the order service or Temporal's client with them. Loaded before the
 * command line is parsed, for the command it names only (loadCommandDetails): every other command, and the list of
 * commands (`--help`), start without them.
 */
export interface CommandDetails {
  orders?: OrdersDetails;
  tokens?: TokensDetails;
}

/** The details of the command `name` (see CommandDetails); none for a command that needs none, or no command. */
export async function loadCommandDetails(name: string | undefined): Promise<CommandDetails> {
  if (name === 'orders') return { orders: await loadOrdersDetails() };
  if (name === 'tokens') return { tokens: await loadTokensDetails() };
  return {};
}

/**
 * The command a command line names: its first operand (`status` in `mve-orders status CHG-1 --as alice`), or the one
 * after `help` (`mve-orders help tokens`); undefined for `mve-orders --help` and the like. The program's own options
 * (-h, --help) are the only ones before the command (enablePositionalOptions).
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  const operands = argv.slice(2).filter((arg) => !arg.startsWith('-'));
  return operands[0] === 'help' ? operands[1] : operands[0];
}

/**
 * Every subcommand lives in its own module under ./commands/ and is registered here, in help order. Registering
 * loads only what the help needs: each command imports what it runs (the engine, the database, the simulator)
 * inside its action, and what its help and argument checks need beyond that comes in `details`, loaded for the
 * command that runs (loadCommandDetails), so that `--help` and the order commands start in a fraction of a second.
 */
export function registerCommands(program: Command, tooling?: ToolingCommands, details: CommandDetails = {}): void {
  tooling?.registerDevCommand(program);
  registerSubmitCommand(program);
  registerStatusCommand(program);
  registerHistoryCommand(program);
  registerApproveCommand(program);
  registerRejectCommand(program);
  registerCancelCommand(program);
  registerResolveBuyCommand(program);
  registerRecoverCommand(program);
  registerOrdersCommand(program, details.orders);
  registerApprovalsCommand(program);
  registerCommitmentsCommand(program);
  registerWorkerCommand(program);
  registerServeCommand(program);
  tooling?.registerClusterCommand(program);
  tooling?.registerSimCommand(program);
  registerLocationsCommand(program);
  registerImagesCommand(program);
  registerCheckCommand(program);
  registerMigrateCommand(program);
  registerApproversCommand(program);
  registerTokensCommand(program, details.tokens);
}
