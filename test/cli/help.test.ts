import test from 'ava';
import { runCli } from '../helpers/cli.js';

test('--help lists the subcommands and exits 0', async (t) => {
  const result = await runCli(['--help']);
  t.is(result.code, 0);
  t.regex(result.stdout, /Usage: mve-orders/);
  t.regex(result.stdout, /\bdev\b/);
});

test('an unknown subcommand is an error that shows help', async (t) => {
  const result = await runCli(['no-such-command']);
  t.not(result.code, 0);
  t.regex(result.stderr, /unknown command/i);
});
