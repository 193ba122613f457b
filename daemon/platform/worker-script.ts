// How the daemon starts a worker thread on one of its own modules. Compiled, the module is the
// .js file next to the caller. Under tsx (unit tests) it is the .ts source: a worker thread does
// not inherit tsx's loader hooks, so a one-line bootstrap loads the source through tsx's API.

/** Worker's `filename` and `eval` options for module `name` (no extension) beside `callerUrl`. */
export function workerScript(
  name: string,
  callerUrl: string,
): { script: string | URL; eval: boolean } {
  const fromSource = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, callerUrl);
  if (!fromSource) return { script: url, eval: false };
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const href = JSON.stringify(url.href);
  return {
    script: `import(${api}).then(({ tsImport }) => tsImport(${href}, ${href}))`,
    eval: true,
  };
}
