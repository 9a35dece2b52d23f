/** `mve-orders devserver`: starts, prints its address, serves the SDK client, stops on SIGINT. */
import test from 'ava';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { runCli } from '../helpers/cli.js';

const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

test('mve-orders devserver prints its address, answers the SDK, and stops on Ctrl-C', async (t) => {
  const child = spawn(process.execPath, [BIN, 'devserver', '--port', '0', '--namespace', 'orders'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address printed; output so far: ${stdout}`)), 20_000);
      child.stdout.on('data', () => {
        const match = /listening on (\S+)/.exec(stdout);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    t.regex(address, /^127\.0\.0\.1:\d+$/);
    const connection = await Connection.connect({ address });
    const namespace = await connection.workflowService.describeNamespace({ namespace: 'orders' });
    t.is(namespace.namespaceInfo?.name, 'orders');
    await connection.close();
  } finally {
    child.kill('SIGINT');
  }
  t.is(await exited, 0);
  t.regex(stdout, /devserver stopped/);
});

test('mve-orders devserver refuses a port out of range', async (t) => {
  const result = await runCli(['devserver', '--port', '70000']);
  t.not(result.code, 0);
  t.regex(result.stderr, /--port must be a whole number from 0 to 65535/);
});
