/**
 * The servers a feature can run against, each fresh per feature with the random namespace the Go runner's dev server
 * gets: the devserver, in this process, or the real Temporal server, `temporal server start-dev` (the CLI that
 * `mve-orders dev` finds), headless and in memory, with the dynamic config the Go runner gives its dev server.
 */
import { startDevServer } from '@mve-orders/devserver';
import { startHeadlessTemporal } from '../../client/dev/start-dev-server.js';
import { findTemporalCli, INSTALL_TEMPORAL, TEMPORAL_CLI_VARIABLE } from '../../client/dev/temporal-cli.js';

export const FEATURE_SERVERS = ['devserver', 'real'] as const;
export type FeatureServerName = (typeof FEATURE_SERVERS)[number];
/** What `--server` takes: one of them, or both side by side. */
export const SERVER_CHOICES = [...FEATURE_SERVERS, 'both'] as const;

/** How each server is named in the results. */
export const SERVER_LABELS: Record<FeatureServerName, string> = {
  devserver: 'devserver',
  real: 'real server',
};

export interface FeatureServer {
  address: string;
  /** RPCs it answered UNIMPLEMENTED (the devserver counts them; the real server implements them all). */
  unimplementedCalls(): Record<string, number>;
  /** What it logged as a warning or an error, line by line. */
  warnings(): string[];
  close(): Promise<void>;
}

export type StartFeatureServer = (namespace: string) => Promise<FeatureServer>;

/** The servers `--server` names, in the order their columns are printed. */
export function chosenServers(choice: string): FeatureServerName[] {
  if (choice === 'both') return [...FEATURE_SERVERS];
  if ((FEATURE_SERVERS as readonly string[]).includes(choice)) return [choice as FeatureServerName];
  throw new Error(`--server must be one of ${SERVER_CHOICES.join(', ')}, not ${choice}`);
}

/**
 * How to start a fresh server of that kind. The real server needs the temporal CLI (MVE_TEMPORAL_CLI, the project's
 * tools, PATH); without it this fails at once, saying how to install it.
 */
export function featureServer(name: FeatureServerName, dynamicConfig: string[]): StartFeatureServer {
  if (name === 'devserver')
    return async (namespace) => {
      const warnings: string[] = [];
      const server = await startDevServer({ namespace, log: (line, level) => level === 'warn' && warnings.push(line) });
      return {
        address: server.address,
        unimplementedCalls: () => server.unimplementedCalls(),
        warnings: () => warnings,
        close: () => server.close(),
      };
    };
  const cli = findTemporalCli(process.env);
  if (!cli)
    throw new Error(
      `--server real: no temporal CLI found; install it with \`${INSTALL_TEMPORAL}\`, or set ${TEMPORAL_CLI_VARIABLE}`,
    );
  return async (namespace) => {
    let output = '';
    const server = await startHeadlessTemporal({
      cli: cli.path,
      namespace,
      // as the Go runner starts its dev server: errors only
      extra: ['--log-level', 'error', ...dynamicConfig],
      output: (chunk) => (output += chunk),
    });
    output = ''; // its start-up banner; what it says from now on is about the feature
    return {
      address: server.address,
      unimplementedCalls: () => ({}),
      warnings: () => output.split('\n').filter((line) => line.trim()),
      close: () => server.stop(),
    };
  };
}
