// svc oauth apps|grants: the OAuth apps users authorize, and the grants they gave.
import { z } from 'zod';
import {
  OAuthAppCreateInput,
  OAuthAppIdInput,
  OAuthAppListInput,
  OAuthGrantIdInput,
  OAuthGrantListInput,
} from '../../shared/schemas/oauth.js';
import {
  OAuthAppCreated,
  OAuthAppView,
  OAuthGrantView,
} from '../../shared/schemas/control-output.js';
import { appView, grantView } from '../oauth/oauth.views.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function oauthProcedures({ oauth }: ControlDeps) {
  return {
    oauth: t.router({
      apps: t.router({
        /** The client secret is in this answer only (stored as SHA-256). */
        create: operator
          .input(OAuthAppCreateInput)
          .output(OAuthAppCreated)
          .mutation(({ input }) => {
            const { app, clientSecret } = oauth.createApp(input);
            return { ...appView(app), client_secret: clientSecret };
          }),
        list: operator
          .input(OAuthAppListInput)
          .output(z.array(OAuthAppView))
          .query(({ input }) => oauth.listApps(input?.workspace_id).map(appView)),
        get: operator
          .input(OAuthAppIdInput)
          .output(OAuthAppView)
          .query(({ input }) => appView(oauth.getApp(input.client_id))),
        /** Also revokes every grant and token the app was given. */
        delete: operator
          .input(OAuthAppIdInput)
          .output(OAuthAppView)
          .mutation(({ input }) => appView(oauth.deleteApp(input.client_id))),
      }),
      grants: t.router({
        list: operator
          .input(OAuthGrantListInput)
          .output(z.array(OAuthGrantView))
          .query(({ input }) =>
            oauth
              .listGrants({
                clientId: input?.client_id,
                workspaceId: input?.workspace_id,
                includeRevoked: input?.include_revoked,
              })
              .map(grantView),
          ),
        revoke: operator
          .input(OAuthGrantIdInput)
          .output(OAuthGrantView)
          .mutation(({ input }) => grantView(oauth.revokeGrant(input.id))),
      }),
    }),
  };
}
