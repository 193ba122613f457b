// angular-expressions, loaded into a JavaScript realm of its own (a node:vm context).
//
// Why: the library guards every evaluation by deleting Function.prototype.constructor and
// defining it again afterwards, so that an expression cannot reach the Function constructor. In
// V8 any change to a prototype discards the optimised code of every function that relied on that
// prototype's shape: in the daemon's realm that is much of node's HTTP, stream and event code,
// which V8 then optimised again, and lost again at the next condition. Measured on the five-step
// workflow bench (one condition per run): ~1,000 re-optimisations every 10 s at steady state,
// and with the guard out of the daemon's realm 15% more runs/s for 20% less CPU per run. Here
// the guard changes the Function.prototype of this realm, which only the library's code uses.
//
// The guard still works as written, for this realm's Function. The daemon realm's one stays out
// of reach the way it always was: the library reads own properties only (`a.constructor` is
// undefined) and a scope holds data (parsed JSON, step results, the secrets proxy), no function.
// The library's check that a result is not a dangerous global sees this realm's Object and
// Function, and the daemon's own timers, passed in below.
//
// The library is two CommonJS files with one relative require; they are evaluated in the
// context with a small loader that follows relative requires only (anything else is an error,
// so a future version that needs more fails loudly in the unit tests). Loaded at the first
// expression compiled: about 1 MB and 3 ms.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { createContext, runInContext, type Context } from 'node:vm';
import type angularExpressions from 'angular-expressions';

type AngularExpressions = typeof angularExpressions;

let loaded: AngularExpressions | undefined;

/** The library, in its own realm (loaded once, on first use). */
export function expressionLibrary(): AngularExpressions {
  loaded ??= loadInOwnRealm();
  return loaded;
}

function loadInOwnRealm(): AngularExpressions {
  const context = createContext({ setTimeout, setInterval });
  // The library reads `global` (a Node global) to decide whether to keep generated source.
  runInContext('globalThis.global = globalThis;', context);
  const entry = createRequire(import.meta.url).resolve('angular-expressions');
  const library = loadCommonJs(entry, context, new Map()) as AngularExpressions;
  // expressions.ts caches compiled expressions itself, bounded in characters; the library's own
  // cache (256 entries of any length, 250 KB each at 2,000 characters) would only hold more.
  (library.compile.cache as { setMaxSize(size: number): void }).setMaxSize(0);
  return library;
}

interface CommonJsModule {
  exports: unknown;
}

function loadCommonJs(file: string, context: Context, modules: Map<string, CommonJsModule>) {
  const known = modules.get(file);
  if (known) return known.exports;
  const module: CommonJsModule = { exports: {} };
  modules.set(file, module);
  const source = readFileSync(file, 'utf8');
  const wrapper = runInContext(`(function (exports, require, module) {${source}\n})`, context, {
    filename: file,
  }) as (exports: unknown, require: (specifier: string) => unknown, module: CommonJsModule) => void;
  const requireRelative = (specifier: string): unknown => {
    if (!specifier.startsWith('./') && !specifier.startsWith('../'))
      throw new Error(`angular-expressions requires '${specifier}', which its realm cannot load.`);
    return loadCommonJs(resolve(dirname(file), specifier), context, modules);
  };
  wrapper(module.exports, requireRelative, module);
  return module.exports;
}
