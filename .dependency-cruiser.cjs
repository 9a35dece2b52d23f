/**
 * The layers of docs/architecture.md, checked by `npm run lint:layers`: an import may run down the list, or stay in
 * its own room; never up, and never in a circle between rooms.
 */
const LAYERS = [
  ['schemas', 'codec', 'config'],
  ['domain'],
  ['infra'],
  ['workflows'],
  ['activities'],
  ['worker'],
  ['client/orders'],
  ['client/http'],
  ['client/console'],
  ['client/server', 'client/http-client'],
  ['client/cli'],
  ['tooling/temporal'],
  ['tooling/dev'],
  ['tooling/commands'],
];

const pathOf = (rooms) => `^(${rooms.join('|')})/`;

/** Every room of the app, tools and tests included. */
const APP = pathOf([
  'schemas',
  'codec',
  'config',
  'domain',
  'infra',
  'workflows',
  'activities',
  'worker',
  'client',
  'tooling/temporal',
  'tooling/dev',
  'tooling/commands',
  'bin',
  'scripts',
  'bench',
  'test',
]);

/** The product: what `serve`, `worker` and `migrate` run, up to the mve-orders command; every room but the tooling. */
const PRODUCT = pathOf(LAYERS.flat().filter((room) => !room.startsWith('tooling/')));

const upward = LAYERS.flatMap((rooms, level) => {
  const above = LAYERS.slice(level + 1).flat();
  return above.length === 0
    ? []
    : [
        {
          name: `layer-${rooms.join('+').replaceAll('/', '-')}`,
          comment: `${rooms.join(', ')} may import only rooms below it: not ${above.join(', ')}`,
          severity: 'error',
          from: { path: pathOf(rooms) },
          to: { path: pathOf(above) },
        },
      ];
});

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circles',
      comment:
        'files that import each other, through any path (the layers keep circles inside a room; this keeps them out of rooms too)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'simulator-stands-alone',
      comment: 'the simulator reads the spec for itself: it imports nothing of the app, nor the rest of the tooling',
      severity: 'error',
      from: { path: '^tooling/sim/' },
      to: { path: [APP, '^tooling/(dev|postgres)/'] },
    },
    {
      name: 'postgres-runner-stands-alone',
      comment: 'the embedded PostgreSQL runner and process supervisor import nothing of the app',
      severity: 'error',
      from: { path: '^tooling/postgres/' },
      to: { path: [APP, '^tooling/sim/'] },
    },
    {
      name: 'product-never-imports-development-tooling',
      comment:
        "the product (serve, worker, migrate and the mve-orders command) never uses the tooling of a machine of your own (tooling/: the simulator, the embedded PostgreSQL, dev's wiring and its commands); bin/cli.ts hands the tooling's commands to the CLI",
      severity: 'error',
      from: { path: PRODUCT },
      to: { path: '^tooling/' },
    },
    {
      name: 'product-runs-on-runtime-dependencies',
      comment:
        'the product imports only the dependencies of package.json, never a devDependency: an install without them runs it',
      severity: 'error',
      from: { path: PRODUCT },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'domain-through-its-public-face',
      comment:
        "other rooms import the domain through its public face, domain/index.ts, or a sub-room's (domain/approval/index.ts, domain/lifecycle/index.ts); tests may reach a module they test",
      severity: 'error',
      from: { pathNot: '^(domain|test)/' },
      to: { path: '^domain/', pathNot: ['^domain/index[.]ts$', '^domain/[a-z-]+/index[.]ts$'] },
    },
    {
      name: 'product-code-never-imports-tests',
      comment: 'tests, benches and scripts may use the product; the product never uses them',
      severity: 'error',
      from: { path: '^(schemas|codec|config|domain|infra|workflows|activities|worker|client|tooling|bin)/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'scripts-do-not-import-tests',
      comment:
        'scripts and benches stand on the product, not on test helpers; a bench may drive the topology harness (the engine as a deployment of processes) and its round-robin client',
      severity: 'error',
      from: { path: '^(scripts|bench)/' },
      to: { path: '^test/', pathNot: '^test/topology/(cluster|round-robin)[.]ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.cjs'],
      conditionNames: ['import', 'node', 'default'],
    },
    exclude: { path: '^(dist|\\.data)/' },
    doNotFollow: { path: 'node_modules' },
  },
};
