import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliFailure, orderCommand, printJson, runOrderCommand, type OrderCommandOptions } from './order-session.js';

export function registerSubmitCommand(program: Command): void {
  orderCommand(program.command('submit'))
    .description('Submit an order request to the API, which checks it and starts its order (one ticket is one order)')
    .argument('<file>', 'the order request as JSON; "-" reads standard input')
    .option('--json', 'print { orderId, ticketId, workflowId, created, state, warnings, order } as JSON')
    .addHelpText(
      'after',
      `
A requester submits for themselves (requestedBy, if given, must be them); a ticket system names the requester.
The same ticket with the same request answers the order it already has (exit 0, nothing new starts); the same
ticket with a different request is refused (exit 1). The request is checked by the API: a broken rule is
refused with each field's path and rule (exit 1). Follow the order with \`mve-orders status <ticketId>\`.
See examples/ for requests and docs/order-request.md.`,
    )
    .action((file: string, options: OrderCommandOptions) =>
      runOrderCommand('submit', options, async ({ api }) => {
        const request = await readRequest(file);
        // Loaded already, by runOrderCommand, to make the client.
        const { ApiCallError } = await import('../../http-client/index.js');
        const { created, order, warnings } = await api.submit(request).catch((error: unknown) => {
          if (
            error instanceof ApiCallError &&
            error.status === 403 &&
            error.details.some((detail) => detail.path === 'requestedBy')
          ) {
            const hint =
              "leave requestedBy out of the request (you submit for yourself), or submit with a ticket system's token";
            throw new CliFailure(
              1,
              `refused (${error.code}): ${error.message}; ${hint}`,
              error.code,
              error.details,
              error.status,
            );
          }
          throw error;
        });
        if (options.json)
          return printJson({
            orderId: order.orderId,
            ticketId: order.ticketId,
            workflowId: order.workflowId,
            created,
            state: order.state,
            warnings,
            order,
          });
        const lines = created
          ? [`submitted ticket ${order.ticketId} as order ${order.orderId} (workflow ${order.workflowId})`]
          : [
              `ticket ${order.ticketId} already has this order (${order.state}, workflow ${order.workflowId}); nothing new was started`,
            ];
        for (const warning of warnings) lines.push(`  warning ${warning.path}: ${warning.message}`);
        lines.push(`follow it with: mve-orders status ${order.ticketId}${options.as ? ` --as ${options.as}` : ''}`);
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
    throw new CliFailure(
      2,
      `cannot read the order request from ${where}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text around the fault, which could be a secret: keep only the position.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliFailure(
      2,
      `the order request on ${where} is not valid JSON${position ? ` (at character ${position})` : ''}`,
    );
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new CliFailure(2, `the order request on ${where} must be a JSON object (see examples/)`);
  }
  return request;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
