import type { Command } from 'commander';
import { registerApproversCommand } from './commands/approvers.js';
import { registerCheckCommand } from './commands/check.js';
import { registerDevCommand } from './commands/dev.js';
import { registerDevserverCommand } from './commands/devserver.js';
import { registerImagesCommand } from './commands/images.js';
import { registerLocationsCommand } from './commands/locations.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerSimCommand } from './commands/sim.js';

/** Every subcommand lives in its own module under ./commands/ and is registered here, in help order. */
export function registerCommands(program: Command): void {
  registerDevCommand(program);
  registerDevserverCommand(program);
  registerSimCommand(program);
  registerLocationsCommand(program);
  registerImagesCommand(program);
  registerCheckCommand(program);
  registerMigrateCommand(program);
  registerApproversCommand(program);
}
