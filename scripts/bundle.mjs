// Last build step: bundles the compiled CLI and daemon process (dist/) into dist/bundle/ with
// esbuild, so that a CLI call or a daemon start loads a few files instead of hundreds (the daemon
// imported 906 modules, 1.2 CPU-s; bundled, 0.7). Code splitting keeps what a command loads lazily
// lazy (each command's module, the control client, the dialogs). shared/bundle-entry.ts says
// when the bundle runs; the compiled files stay, for tests, workers and a build without this step.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const { BUNDLE_DIR, BUNDLE_ENTRIES, BUNDLE_STAMP } = await import('../dist/shared/bundle-entry.js');
const outdir = join(dist, BUNDLE_DIR);

// Packages loaded from node_modules as before, not bundled: each needs its own files at run time
// or is reached again by path, where a second, bundled copy would be another module.
const EXTERNAL = [
  'better-sqlite3', // a native addon, found through its own folder
  'pg', // runs in its worker thread, which loads the compiled worker
  'pino', // its transports run in worker threads started by file path
  'pdfjs-dist', // loads its worker and fonts by path
  'mammoth', // in the document-extraction worker
  'node-cron', // forks its daemon.js by path
  'undici', // the outbound worker's; bundled, its stack traces name the wrong file
  'angular-expressions', // loaded by path into its own realm (expression-realm.ts)
  '@inquirer/prompts', // dialogs only; 800 KB (iconv-lite) that no other command needs
  'open', // runs its xdg-open script by path
  'tsx', // the sources' loader (worker-script.ts), never in a compiled run
];

// A bundled package must not find its files by path: these name a module's own location.
const OWN_PATH = /\b__dirname\b|\b__filename\b|\bimport\.meta\b/;
// Where they do no harm: commander's path is for executable subcommands, which svc has none of.
const OWN_PATH_HARMLESS = new Set(['commander']);

const packageOf = (path) => /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(path)?.[1];

/**
 * Every output file sits two folders under dist/ (bundle/cli, bundle/daemon, bundle/chunks), so
 * a compiled module's own URL (what `import.meta.url` says: worker scripts, the command table,
 * the package root are found beside it) is `../../<its path under dist>` from any of them.
 */
const ownUrls = {
  name: 'own-urls',
  setup(context) {
    context.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
      const contents = readFileSync(args.path, 'utf8');
      const pkg = packageOf(args.path);
      if (pkg !== undefined) {
        if (OWN_PATH.test(contents) && !OWN_PATH_HARMLESS.has(pkg)) {
          return {
            errors: [
              {
                text: `${pkg} finds files by its own path (${relative(dist, args.path)}): add it to EXTERNAL in scripts/bundle.mjs`,
              },
            ],
          };
        }
        return undefined;
      }
      const underDist = relative(dist, args.path).split(sep).join('/');
      const ownUrl = `new URL(${JSON.stringify(`../../${underDist}`)}, import.meta.url).href`;
      return {
        contents: contents.replaceAll('import.meta.url', ownUrl),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

/**
 * Node 24's node:http has getters (WebSocket, CloseEvent, MessageEvent) that load Node's own
 * undici, and an ESM import of a built-in module reads every export to build its facade: one
 * `import { createServer } from 'node:http'` (app-host.ts; @trpc/server's adapter) cost the daemon
 * about 0.1 CPU-s of its start loading an undici it never uses (the outbound worker has its own).
 * A require() builds no facade, so those imports become one of a module that requires node:http
 * and exports its plain values; the getters stay lazy on the module itself.
 */
const HTTP_SHIM = 'node-http-without-facade';
const httpShim = {
  name: 'node-http-without-facade',
  setup(context) {
    context.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      args.kind === 'import-statement' ? { path: HTTP_SHIM, namespace: HTTP_SHIM } : undefined,
    );
    context.onLoad({ filter: /.*/, namespace: HTTP_SHIM }, () => {
      const http = createRequire(import.meta.url)('node:http');
      const plain = Object.entries(Object.getOwnPropertyDescriptors(http))
        .filter(([name, descriptor]) => !descriptor.get && /^[A-Za-z_$][\w$]*$/.test(name))
        .map(([name]) => name);
      return {
        contents: [
          "import { createRequire } from 'node:module';",
          "const http = createRequire(import.meta.url)('node:http');",
          'export default http;',
          `export const { ${plain.join(', ')} } = http;`,
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * Modules a bundled package require()s as it loads but uses only on a path svc rarely or never
 * takes: each such require() gets a stand-in that loads the module at its first use (a read of
 * a property, or a call). Measured per daemon start: node:http2 (with node:https), which
 * fastify's server.js loads for its http2 and https options (svc sets neither), about 0.05
 * CPU-s; type-is, which @node-oauth/oauth2-server's request.js needs only in a token or
 * authorize request and which builds mime-db's tables as it loads, about 0.03.
 */
const LAZY_REQUIRES = [
  { importer: /[\\/]fastify[\\/]lib[\\/]server\.js$/, modules: ['node:http2', 'node:https'] },
  { importer: /[\\/]@node-oauth[\\/]oauth2-server[\\/]lib[\\/]request\.js$/, modules: ['type-is'] },
];
const LAZY = 'lazy-require';
const lazyRequires = {
  name: LAZY,
  setup(context) {
    context.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'require-call') return undefined;
      const lazy = LAZY_REQUIRES.some(
        (entry) => entry.importer.test(args.importer) && entry.modules.includes(args.path),
      );
      if (!lazy) return undefined;
      return {
        path: `${args.path} (lazy, for ${relative(join(dist, '..'), args.importer)})`,
        namespace: LAZY,
        pluginData: { module: args.path, resolveDir: dirname(args.importer) },
      };
    });
    context.onLoad({ filter: /.*/, namespace: LAZY }, ({ pluginData }) => ({
      // A function target, so that a module that is a function (type-is) can be called too.
      contents: `let loaded;
const load = () => (loaded ??= require(${JSON.stringify(pluginData.module)}));
module.exports = new Proxy(function lazyModule() {}, {
  apply: (_target, self, args) => Reflect.apply(load(), self, args),
  get: (_target, key) => load()[key],
  has: (_target, key) => key in load(),
});`,
      loader: 'js',
      resolveDir: pluginData.resolveDir,
    }));
  },
};

/**
 * zod's namespace (`z`, and `z.core`) re-exports every locale of its error messages, half of the
 * zod chunk (366 of 751 KB) that each daemon start and CLI call parsed; svc speaks English only
 * (zod's default, which its schemas module imports itself). The locales' barrel becomes `en`
 * alone: about 0.04 CPU-s a daemon start. (z.locales.fr would read undefined: svc calls none.)
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(context) {
    context.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? {
            path: join(dirname(args.importer), '..', 'locales', 'english only'),
            namespace: 'zod-en',
          }
        : undefined,
    );
    context.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({
      contents: `export { default as en } from './en.js';`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: Object.fromEntries(
    Object.entries(BUNDLE_ENTRIES).map(([name, file]) => [name, join(dist, file)]),
  ),
  outdir,
  chunkNames: 'chunks/[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: EXTERNAL,
  // Where two modules' top-level names meet, the bundle renames one (Request2): svc reads no
  // class's or function's own name (errors set theirs), and keeping them cost 0.1 s a daemon start.
  keepNames: false,
  plugins: [ownUrls, httpShim, lazyRequires, zodEnglishOnly],
  // CommonJS packages bundled into ESM call require() for Node's modules.
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  metafile: true,
  logLevel: 'warning',
});
// esbuild splits an import() of a CommonJS module into a chunk that exports only `default`, where
// Node gives the named exports too (`const { parse } = await import('yaml')` would read undefined).
const dynamicCommonJs = Object.values(result.metafile.inputs).flatMap((input) =>
  input.imports
    .filter((dep) => dep.kind === 'dynamic-import' && !dep.external)
    .filter((dep) => result.metafile.inputs[dep.path]?.format === 'cjs')
    .map((dep) => packageOf(dep.path) ?? dep.path),
);
if (dynamicCommonJs.length > 0)
  throw new Error(
    `scripts/bundle.mjs: import() of CommonJS ${[...new Set(dynamicCommonJs)].join(', ')}: add it to EXTERNAL`,
  );
const depths = Object.keys(result.metafile.outputs).map(
  (file) => relative(outdir, file).split(/[\\/]/).length,
);
if (depths.some((depth) => depth !== 2))
  throw new Error('scripts/bundle.mjs: every output must sit one folder under dist/bundle');
// Last: the bundle is complete (shared/bundle-entry.ts compares this file's time with tsc's).
writeFileSync(join(dist, BUNDLE_STAMP), `${new Date().toISOString()}\n`);
