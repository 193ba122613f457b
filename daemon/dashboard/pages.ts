// The dashboard's two server-rendered documents: the shell every page URL answers with (the
// script draws the page), and the 401 page shown without a session. No inline script or style:
// the Content-Security-Policy forbids both.

/** Each page URL answers with this shell; the client routes on the path. */
export function shellPage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>svc dashboard</title>
    <link rel="stylesheet" href="/ui/assets/style.css">
    <link rel="stylesheet" href="/ui/assets/workflow.css">
    <link rel="icon" href="/ui/assets/icon.svg">
    <script type="module" src="/ui/assets/app.js"></script>
  </head>
  <body>
    <div id="app"><p class="boot">Loading the dashboard…</p></div>
    <noscript><p class="boot">The dashboard needs JavaScript.</p></noscript>
  </body>
</html>
`;
}

/** Without a session: what to run, and nothing else. */
export function loginNeededPage(reason: string, command = 'svc dashboard'): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Log in to the svc dashboard</title>
    <link rel="stylesheet" href="/ui/assets/style.css">
    <link rel="icon" href="/ui/assets/icon.svg">
  </head>
  <body>
    <main class="login-needed">
      <h1>Log in to the svc dashboard</h1>
      <p>${escapeHtml(reason)}</p>
      <p>Run this in a terminal on this machine; it prints a new login link (valid 5 minutes, once) and opens it:</p>
      <pre><code>${escapeHtml(command)}</code></pre>
      <p class="hint">Give it the same <code>--data-dir</code> as the daemon if you started the daemon with one.</p>
    </main>
  </body>
</html>
`;
}

/** The dashboard's files are missing: the package was not built. */
export function notBuiltPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc dashboard not built</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> in the svc package, then restart the daemon.</p></main></body></html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );
}
