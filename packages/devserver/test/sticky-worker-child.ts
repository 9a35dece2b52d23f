/**
 * A worker alone in a child process, so a test can kill it (SIGKILL) the way a crashed worker goes: without
 * telling the server. `node --import tsx sticky-worker-child.ts` with STICKY_ADDRESS, STICKY_TASK_QUEUE and
 * STICKY_BUNDLE (a workflow bundle file); its sticky queue's schedule-to-start timeout is 1 s. Prints `ready`.
 */
import { readFile } from 'node:fs/promises';
import { DefaultLogger, makeTelemetryFilterString, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import * as activities from './fixtures/activities.js';

Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
});
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address: process.env.STICKY_ADDRESS! }),
  taskQueue: process.env.STICKY_TASK_QUEUE!,
  workflowBundle: { code: await readFile(process.env.STICKY_BUNDLE!, 'utf8') },
  activities,
  stickyQueueScheduleToStartTimeout: '1s',
});
const running = worker.run();
process.stdout.write('ready\n');
await running;
