/**
 * Temporal's Web UI for a cluster, which serves none of its own (start-dev has one built in): Temporal's UI server
 * (`temporal-ui-server`, built by tools.ts from github.com/temporalio/ui-server, the UI's assets embedded in it),
 * pointed at a frontend. Its settings go in a config file of its own (`<dir>/config/cluster.yaml`, JSON, which its
 * YAML loader reads as it is), as the server reads them: `--root <dir> --config config --env cluster start`.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { superviseServer } from '../../postgres/index.js';
import { untilAnswers } from '../start-dev-server.js';

export interface WebUiServerOptions {
  /** The temporal-ui-server binary. */
  binary: string;
  /** Its config folder and log. */
  dir: string;
  host: string;
  port: number;
  /** The frontend it calls. */
  temporalAddress: string;
  namespace: string;
  /**
   * The codec server the UI decodes payloads with, and whether the browser sends it its cookies (a codec server that
   * knows who is signed in); none: payloads shown as they are stored.
   */
  codec?: { endpoint: string; includeCredentials: boolean };
  /** Where the browser reaches the UI from, when not on `host:port` itself (a front): allowed by its CORS and CSRF checks. */
  origins?: string[];
  readyTimeoutMs?: number;
}

export interface WebUiServer {
  url: string;
  pid: number;
  logFile: string;
  /** Settles, saying how, when it has ended, whether stop() asked it to or not. */
  exited: Promise<string>;
  stop(): Promise<void>;
}

export const WEB_UI_ENVIRONMENT = 'cluster';

/** The UI server's settings (github.com/temporalio/ui-server's server/config): a UI on loopback, over plain HTTP. */
export function webUiConfig(options: WebUiServerOptions): object {
  const own = `http://${options.host}:${options.port}`;
  return {
    temporalGrpcAddress: options.temporalAddress,
    host: options.host,
    port: options.port,
    enableUi: true,
    defaultNamespace: options.namespace,
    // the UI would otherwise fetch Temporal's news from the internet
    disableNewsFetch: true,
    refreshInterval: '0s',
    // Served over plain HTTP on loopback: its CSRF cookie must not be marked Secure, or browsers drop it.
    cors: { allowOrigins: [own, ...(options.origins ?? [])], unsafeAllowAllOrigins: false, cookieInsecure: true },
    codec: {
      endpoint: options.codec?.endpoint ?? '',
      passAccessToken: false,
      includeCredentials: options.codec?.includeCredentials ?? false,
    },
  };
}

/** Starts it under a supervisor (it ends with this process), its output in `<dir>/web-ui.log`; resolves once it answers. */
export async function startWebUiServer(options: WebUiServerOptions): Promise<WebUiServer> {
  const configDir = join(options.dir, 'config');
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  await writeFile(join(configDir, `${WEB_UI_ENVIRONMENT}.yaml`), JSON.stringify(webUiConfig(options), null, 2));
  const logFile = join(options.dir, 'web-ui.log');
  const log = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
  log.write(`--- ${new Date().toISOString()} started\n`);
  const args = ['--root', options.dir, '--config', 'config', '--env', WEB_UI_ENVIRONMENT, 'start'];
  const closeLog = () => new Promise<void>((resolve) => log.end(() => resolve()));
  const server = await superviseServer(options.binary, args, {
    name: 'temporal-web-ui',
    umask: 0o077,
    // it handles no SIGINT, which the supervisor's shell has it ignore
    stopSignal: 'TERM',
    output: (chunk) => log.write(chunk),
  }).catch(async (error: unknown) => {
    await closeLog();
    throw new Error(`Temporal's Web UI server did not start: ${(error as Error).message}; its log: ${logFile}`);
  });
  const url = `http://${options.host}:${options.port}`;
  const stop = async () => {
    await server.stop();
    await closeLog();
  };
  try {
    await untilAnswers(server, url, options.readyTimeoutMs ?? 30_000, async () => {
      const answer = await fetch(`${url}/api/v1/settings`, { signal: AbortSignal.timeout(1_000) });
      return answer.ok ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw new Error(`Temporal's Web UI server ${(error as Error).message}; its log: ${logFile}`);
  }
  return { url, pid: server.pid, logFile, exited: server.exited, stop };
}
