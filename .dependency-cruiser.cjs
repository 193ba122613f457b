// The import rules of the daemon's folders, checked by `npm run depcruise` (part of `npm test`).
// ARCHITECTURE.md describes the layout; this file is its enforceable half.
//
// Each line of LAYERS is one tier, lowest first. A folder may import its own files, shared/ and
// the folders of LOWER tiers only: never a folder of its own tier or a higher one. So an import
// never runs up, and no two folders can import each other, even through others.
const LAYERS = [
  ['domain'], // the words every layer shares: errors, pages, workspace, credential, environment
  ['platform'], // logger, worker threads, memory trim, the secret box
  ['store'], // SQLite: the database, migrations, snapshots, row caches
  ['cluster'], // team mode: the sandbox's daemons, their leases, step claims
  ['time'], // the clock, durable timers, alarms, housekeeping
  ['ratelimit'],
  ['workspaces'],
  ['keys', 'secrets', 'faults'],
  ['http'], // the HTTP platform every route uses: route definitions, validation, errors, OpenAPI
  ['auth', 'outbound', 'events', 'templates'],
  ['webhooks', 'agents', 'integrations', 'oauth', 'triggers'],
  ['engine'], // drives runs; what it needs from above it are its ports (engine/ports.ts)
  ['workflows'], // workflows and their executions API
  ['fixtures'],
  ['control'], // the tRPC control channel
  ['dashboard'],
  ['app'], // the composition root: services and the Fastify app
  ['process'], // the process shell: entry, server, app host, store swap, lock, signals
];

const folder = (name) => `^daemon/${name}/`;
const above = (tier) => LAYERS.slice(tier).flat();

const layerRules = LAYERS.flatMap((names, tier) =>
  names.map((name) => ({
    name: `layer-${name}`,
    comment: `daemon/${name}/ (tier ${tier + 1}) imports only lower tiers: ${above(tier)
      .filter((other) => other !== name)
      .join(', ')} are its tier or above.`,
    severity: 'error',
    from: { path: folder(name) },
    to: {
      path: `^daemon/(${above(tier)
        .filter((other) => other !== name)
        .join('|')})/`,
    },
  })),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file imports itself through others.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'daemon-modules-are-layered',
      comment:
        'Every daemon module lives in a folder that has its tier in LAYERS (no loose files).',
      severity: 'error',
      from: { path: '^daemon/', pathNot: `^daemon/(${LAYERS.flat().join('|')})/` },
      to: {},
    },
    {
      name: 'shared-imports-nothing-of-ours',
      comment: 'shared/ is what the CLI and the daemon both use: it imports neither.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(daemon|cli)/' },
    },
    {
      name: 'cli-does-not-load-the-daemon',
      comment: 'The CLI talks HTTP and tRPC; only the control router type comes from the daemon.',
      severity: 'error',
      from: { path: '^cli/' },
      to: {
        path: '^daemon/',
        pathNot: '^daemon/control/router\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    ...layerRules,
  ],
  options: {
    includeOnly: '^(daemon|cli|shared)/',
    exclude: { path: '^daemon/dashboard/web/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
