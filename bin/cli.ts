/**
 * The `mve-orders` command as bin/mve-orders.js runs it: the product's commands (client/cli) with the commands of a
 * machine of your own (`dev`, `cluster`, `sim`: tooling/commands) handed in. Composed here, above both, so that the
 * product never imports the tooling.
 */
import { runCli } from '../client/cli/main.js';
import { registerClusterCommand } from '../tooling/commands/cluster.js';
import { registerDevCommand } from '../tooling/commands/dev.js';
import { registerSimCommand } from '../tooling/commands/sim.js';

runCli(process.argv, { registerDevCommand, registerClusterCommand, registerSimCommand });
