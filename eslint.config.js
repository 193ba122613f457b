// Lint rules for sources, tests and benchmarks. Type-aware rules catch floating promises,
// which in a daemon mean lost work.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tmp/**', 'bin/**', 'client/openapi-paths.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly' },
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      // One type program over sources and tests (tsconfig.eslint.json): two (one per tsconfig)
      // cost a quarter more CPU.
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Function']",
          message: 'Never build code from strings.',
        },
        { selector: "CallExpression[callee.name='eval']", message: 'Never eval.' },
      ],
    },
  },
  {
    // The dashboard's page scripts run in the browser.
    files: ['daemon/dashboard/web/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'fetch',
          'EventSource',
          'location',
          'history',
          'setTimeout',
          'clearTimeout',
          'URLSearchParams',
          'navigator',
          'Intl',
          'queueMicrotask',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The consumer projects under examples/ stand on their own (their own tsconfig, svc from
    // node_modules/svc): outside the one type program, so no type-aware rule runs on them;
    // test/e2e/examples.test.ts type-checks the TypeScript one with its own tsconfig.
    files: ['examples/**/*.ts'],
    languageOptions: { parserOptions: { project: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  ...layers(),
  {
    // The CLI talks to the daemon over HTTP and the control channel and spawns its entry point:
    // it never loads daemon code. The one exception is the control router's type, which the
    // tRPC client needs (erased at build time), imported in cli/control-client.ts only.
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)daemon/',
              message:
                'The CLI does not import the daemon: shared words live in shared/, the router type comes from cli/control-client.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // --foreground runs the daemon inside the CLI's process: it loads daemon-process.js by path,
    // as the background start spawns entry.js, and imports only the types of what it loads.
    files: ['cli/daemon-process.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)daemon/(?!process/(daemon-process|stop-signals)\\.js$)',
              message: 'Only the types of the daemon process it runs may come from the daemon.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['cli/control-client.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)daemon/(?!control/router\\.js$)',
              message: 'Only the control router type may come from the daemon.',
            },
            { regex: '(^|/)daemon/control/router\\.js$', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);

/**
 * The daemon's layers point one way: HTTP (routes, http/, app, control channel) -> services ->
 * repositories -> store, with the shared words (errors, pages, workspace, transactions) in
 * daemon/domain/ below all of them. Only repositories and the store talk SQL, and only they and
 * the composition root (app/services.ts) see the database handle. Which folder may import which
 * is checked by dependency-cruiser (.dependency-cruiser.cjs).
 */
function layers() {
  const http = {
    regex: '(^|/)(http|control|dashboard|process)/|\\.routes\\.js$|(^|/)app/(app|resources)\\.js$',
    message:
      'Only the HTTP layer (http/, *.routes.ts, app/app.ts, app/resources.ts, control/, dashboard/, process/) imports the HTTP layer; shared words live in daemon/domain/.',
  };
  const db = {
    regex: '^better-sqlite3$|(^|/)store/(database|statement-cache|list-query)\\.js$',
    message:
      'SQL and the database handle belong in a repository; a service gets Transactions (domain/transactions.ts).',
  };
  const upward = {
    regex: '\\.service\\.js$|(^|/)services\\.js$',
    message: 'The store and repositories sit below the services: they never import one.',
  };
  const outsideDomain = {
    regex: '^\\.\\./(?!\\.\\./shared/)',
    message: 'daemon/domain/ is the bottom layer: it imports only itself and shared/.',
  };
  const rule = (...patterns) => ({
    'no-restricted-imports': ['error', { patterns: patterns.map((p) => ({ ...p })) }],
  });
  const httpSide = [
    'daemon/http/**',
    'daemon/**/*.routes.ts',
    'daemon/control/**',
    // Authentication and rate limits, asked by every credential route before its handler.
    'daemon/auth/access.ts',
    // The dashboard is an HTTP adapter too: its guard, sessions, pages and SSE.
    'daemon/dashboard/**',
    'daemon/app/app.ts',
    // The REST modules' list (their routes and tags), which app.ts serves.
    'daemon/app/resources.ts',
    'daemon/app/openapi-export.ts',
    // The process shell: entry, server, app host, store swap.
    'daemon/process/**',
  ];
  const storeSide = ['daemon/store/**', 'daemon/**/*.repository.ts'];
  return [
    { files: ['daemon/**/*.ts'], ignores: [...httpSide, ...storeSide], rules: rule(http, db) },
    { files: ['daemon/app/services.ts'], rules: rule(http) },
    { files: ['daemon/domain/**'], rules: rule(http, db, outsideDomain) },
    { files: storeSide, rules: rule(http, upward) },
    { files: httpSide, rules: rule(db) },
  ];
}
