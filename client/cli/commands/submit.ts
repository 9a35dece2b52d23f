import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliFailure, printJson, runOrderCommand, type OutputOptions } from './order-session.js';

export function registerSubmitCommand(program: Command): void {
  program
    .command('submit')
    .description('Check an order request and start its order (one ticket is one order)')
    .argument('<file>', 'the order request as JSON; "-" reads standard input')
    .option('--json', 'print { workflowId, ticketId, warnings } as JSON')
    .addHelpText(
      'after',
      `
Exit codes: 0 started; 1 invalid request or the ticket already has an order; 2 unreadable input or no engine.
Follow the order with \`mve-orders status <ticketId>\`. See examples/ for requests and docs/order-request.md.`,
    )
    .action((file: string, options: OutputOptions) =>
      runOrderCommand('submit', options, async ({ orders }) => {
        const submitted = await orders.submit(await readRequest(file));
        if (options.json) return printJson(submitted);
        const lines = [`submitted ticket ${submitted.ticketId} (workflow ${submitted.workflowId})`];
        for (const warning of submitted.warnings) lines.push(`  warning ${warning.path}: ${warning.message}`);
        lines.push(`follow it with: mve-orders status ${submitted.ticketId}`);
        process.stdout.write(`${lines.join('\n')}\n`);
      }),
    );
}

async function readRequest(file: string): Promise<unknown> {
  const where = file === '-' ? 'standard input' : file;
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new CliFailure(2, `cannot read the order request from ${where}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text around the fault, which could be a secret: keep only the position.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliFailure(2, `the order request on ${where} is not valid JSON${position ? ` (at character ${position})` : ''}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
