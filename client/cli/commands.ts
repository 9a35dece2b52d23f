import type { Command } from 'commander';
import { registerDevCommand } from './commands/dev.js';

/** Every subcommand lives in its own module under ./commands/ and is registered here, in help order. */
export function registerCommands(program: Command): void {
  registerDevCommand(program);
}
