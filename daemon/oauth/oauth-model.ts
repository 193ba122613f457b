// The @node-oauth/oauth2-server model over OAuthService. The library validates the grant
// (client authentication, grant type, PKCE S256, redirect_uri, scope narrowing on refresh);
// this model answers its questions from the SQLite repositories. Time checks are done here on
// the daemon clock: the library compares dates with the real clock, so the dates handed back to
// it are only ever "not expired" (the daemon clock already decided).
import OAuth2Server from '@node-oauth/oauth2-server';
import type { OAuthApp, OAuthService, GrantUser } from './oauth.service.js';

type Client = OAuth2Server.Client;
type Token = OAuth2Server.Token;

const GRANTS = ['authorization_code', 'refresh_token'];

function asClient(app: OAuthApp): Client {
  return { id: app.client_id, grants: GRANTS, redirectUris: app.redirect_uris, app };
}

export function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** A date the library's real-clock comparison sees as valid (the daemon clock decided). */
function stillValid(): Date {
  return new Date(Date.now() + 60_000);
}

export function oauthModel(
  service: OAuthService,
): OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel {
  return {
    async getClient(clientId: string, clientSecret: string | undefined) {
      // RFC 6749 §2.3.1: HTTP Basic credentials are form-urlencoded before base64 (oauth4webapi
      // encodes "_" as %5F); the library passes them on undecoded.
      const app = service.authenticateClient(
        formDecode(clientId),
        clientSecret ? formDecode(clientSecret) : undefined,
      );
      return app ? asClient(app) : null;
    },

    async getAuthorizationCode(code: string) {
      const found = service.lookupCode(code);
      switch (found.type) {
        case 'invalid':
          return null;
        case 'reused':
          throw new OAuth2Server.InvalidGrantError(
            'Invalid grant: the authorization code was used already; every token issued from it is revoked',
          );
        case 'expired':
          throw new OAuth2Server.InvalidGrantError(
            'Invalid grant: the authorization code has expired (codes are valid 10 minutes)',
          );
        case 'ok': {
          const { row, grant } = found;
          const app = service.findApp(row.app_id);
          if (!app) return null;
          const user: GrantUser = {
            id: grant.user_id,
            grantId: grant.id,
            workspaceId: grant.workspace_id,
          };
          return {
            authorizationCode: code,
            expiresAt: stillValid(),
            redirectUri: row.redirect_uri,
            scope: row.scopes.split(' '),
            client: asClient(app),
            user,
            ...(row.code_challenge
              ? {
                  codeChallenge: row.code_challenge,
                  codeChallengeMethod: row.code_challenge_method ?? 'S256',
                }
              : {}),
          };
        }
      }
    },

    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode) {
      if (service.consumeCode(code.authorizationCode)) return true;
      // Another request used it in between: that is reuse too (revokes what it issued).
      service.lookupCode(code.authorizationCode);
      return false;
    },

    async saveAuthorizationCode() {
      // Codes are made by the consent page (OAuthService.approve), never by the library.
      return null;
    },

    async getRefreshToken(refreshToken: string) {
      const found = service.lookupRefreshToken(refreshToken);
      switch (found.type) {
        case 'invalid':
          return null;
        case 'reused':
          throw new OAuth2Server.InvalidGrantError(
            'Invalid grant: the refresh token was rotated out already; the whole grant is revoked (reuse detection)',
          );
        case 'expired':
          throw new OAuth2Server.InvalidGrantError('Invalid grant: the refresh token has expired');
        case 'ok': {
          const { row } = found;
          const app = service.findApp(row.app_id);
          if (!app) return null;
          const user: GrantUser = {
            id: row.user_id,
            grantId: row.grant_id,
            workspaceId: row.workspace_id,
          };
          return {
            refreshToken,
            refreshTokenExpiresAt: stillValid(),
            scope: row.scopes.split(' '),
            client: asClient(app),
            user,
            tokenId: row.id,
          };
        }
      }
    },

    async revokeToken(token: OAuth2Server.RefreshToken) {
      if (service.consumeRefreshToken(token.tokenId as string)) return true;
      // Rotated out by a concurrent request: the same token used twice is reuse.
      service.lookupRefreshToken(token.refreshToken);
      return false;
    },

    async validateScope(_user, _client, scope) {
      // The scope was checked against the app at the authorization request and bound to the code.
      return scope && scope.length > 0 ? scope : null;
    },

    async saveToken(token: Token, client: Client, user: GrantUser) {
      const issued = service.issueTokens(user.grantId, token.scope ?? []);
      if (!issued) {
        throw new OAuth2Server.InvalidGrantError(
          'Invalid grant: the grant was revoked while this request ran (its code or refresh token was used twice)',
        );
      }
      return {
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        accessTokenExpiresAt: stillValid(),
        refreshTokenExpiresAt: stillValid(),
        scope: issued.scopes,
        client,
        user,
        issued,
      };
    },

    async getAccessToken() {
      // Access tokens are checked by the daemon's credential layer, not by the library.
      return null;
    },
  };
}
