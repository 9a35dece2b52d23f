import { Command } from 'commander';
import { registerCommands } from './commands.js';

const program = new Command()
  .name('mve-orders')
  .description('Approval-gated order workflow engine for virtual edge router instances (MVE)')
  .showHelpAfterError()
  .enablePositionalOptions();

registerCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`mve-orders: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
