/**
 * `npm run cluster:install`: builds the parts of the self-hosted Temporal cluster (tools.ts) into the project's tools
 * folder without starting anything, printing its progress and, at the end, where each part is.
 */
import { parseArgs } from 'node:util';
import {
  GO_TOOLCHAIN,
  GO_VARIABLE,
  installClusterTools,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
  TOOLS_DIR_VARIABLE,
} from './tools.js';

const USAGE = `usage: npm run cluster:install [-- --help]

Builds Temporal's server ${TEMPORAL_SERVER_VERSION} (temporal-server) and its schema tool (temporal-sql-tool) from
the Go module go.temporal.io/server, and Temporal's Web UI server ${TEMPORAL_UI_VERSION} (temporal-ui-server) from
github.com/temporalio/ui-server/v2, with Go ${GO_TOOLCHAIN}, and copies the server's PostgreSQL schema, into
.tools/temporal-cluster/${TEMPORAL_SERVER_VERSION}/. A build already there is used as it is.

Needs go 1.21 or newer on PATH (or ${GO_VARIABLE} naming one) and the Go module proxy in reach. The first build takes
6 to 20 minutes on 2 cores. ${TOOLS_DIR_VARIABLE} puts the tools folder elsewhere.
`;

async function main(): Promise<number> {
  let help: boolean;
  try {
    help = parseArgs({ options: { help: { type: 'boolean', short: 'h', default: false } } }).values.help;
  } catch (error) {
    process.stderr.write(`cluster:install: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (help) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const tools = await installClusterTools({ log: (line) => process.stdout.write(`${line}\n`) });
    process.stdout.write(
      `temporal-server:    ${tools.server}\ntemporal-sql-tool:  ${tools.sqlTool}\n` +
        `temporal-ui-server: ${tools.uiServer}\nschema:             ${tools.schemaDir}\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
