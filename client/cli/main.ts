import { Command } from 'commander';
import { commandNamed, loadCommandDetails, registerCommands, type ToolingCommands } from './commands.js';

export type { ToolingCommands } from './commands.js';

/** Runs the `mve-orders` command on `argv`: the product's commands, and the tooling's when they are handed in. */
export function runCli(argv: readonly string[], tooling?: ToolingCommands): void {
  const program = new Command()
    .name('mve-orders')
    .description('Approval-gated order workflow engine for virtual edge router instances (MVE)')
    .showHelpAfterError()
    .enablePositionalOptions();
  loadCommandDetails(commandNamed(argv))
    .then((details) => {
      registerCommands(program, tooling, details);
      return program.parseAsync([...argv]);
    })
    .catch((error: unknown) => {
      process.stderr.write(`mve-orders: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 2;
    });
}
