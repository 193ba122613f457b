// Server-rendered HTML of the authorization step: the consent page and the error page. Plain
// forms, no JavaScript, so it works in any browser and in a text browser (lynx, w3m).
import { SCOPE_DESCRIPTIONS } from '../../shared/scopes.js';
import type { Workspace } from '../domain/workspace.js';
import type { AuthorizeRequest } from './oauth.service.js';

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}ul{padding-left:1.2rem}li{margin:.3rem 0}code{background:#f3f3f3;padding:0 .2rem}
.note{color:#555;font-size:.9rem}.actions{margin-top:1.5rem;display:flex;gap:.8rem}
button{font-size:1rem;padding:.5rem 1.2rem;cursor:pointer}button.approve{font-weight:bold}
.error{border-left:4px solid #c00;padding-left:1rem}`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body}
</body></html>
`;
}

function hidden(name: string, value: string | undefined): string {
  return value === undefined
    ? ''
    : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

export function renderConsentPage(input: {
  request: AuthorizeRequest;
  workspaces: readonly Workspace[];
  csrfToken: string;
}): string {
  const { request, workspaces, csrfToken } = input;
  const { app } = request;
  const scopes = request.scopes
    .map(
      (scope) =>
        `<li><strong>${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</strong> <code>${scope}</code></li>`,
    )
    .join('\n');
  const options = workspaces
    .map(
      (ws) =>
        `<option value="${escapeHtml(ws.id)}"${ws.id === app.workspace_id ? ' selected' : ''}>${escapeHtml(ws.name)} (${ws.tier}, ${escapeHtml(ws.id)})</option>`,
    )
    .join('\n');
  const back = new URL(request.redirectUri);
  return page(
    `Authorize ${app.name}`,
    `<h1>Authorize <em>${escapeHtml(app.name)}</em></h1>
<p><strong>${escapeHtml(app.name)}</strong> (client <code>${escapeHtml(app.client_id)}</code>) asks to act for you in one svc workspace. It will be able to:</p>
<ul>
${scopes}
</ul>
<form method="post" action="/oauth/authorize">
${[
  hidden('csrf_token', csrfToken),
  hidden('response_type', 'code'),
  hidden('client_id', app.client_id),
  hidden('redirect_uri', request.redirectUri),
  hidden('scope', request.scopes.join(' ')),
  hidden('state', request.state),
  hidden('code_challenge', request.codeChallenge),
  hidden('code_challenge_method', request.codeChallengeMethod),
]
  .filter(Boolean)
  .join('\n')}
<p><label for="workspace_id">Workspace the app gets access to:</label><br>
<select id="workspace_id" name="workspace_id">
${options}
</select></p>
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="note">Either way you go back to <code>${escapeHtml(back.origin === 'null' ? back.protocol : back.origin)}</code>. You can revoke access later with <code>svc oauth grants revoke</code>.</p>`,
  );
}

export function renderErrorPage(title: string, message: string): string {
  return page(
    title,
    `<div class="error"><h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p></div>
<p class="note">The application that sent you here is misconfigured or the request was tampered with; you were not sent back to it.</p>`,
  );
}
