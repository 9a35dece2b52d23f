import type { Command } from 'commander';

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('Run the whole engine on one machine with embedded defaults (what `npm start` runs)')
    .action(() => {
      process.stdout.write(
        'mve-orders dev: the engine is not assembled yet; nothing to run.\n' +
          'Built so far: the command-line skeleton. See the README for what each release adds.\n',
      );
    });
}
