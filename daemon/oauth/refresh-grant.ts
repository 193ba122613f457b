// The library's refresh_token grant with one change of order: the requested scope is checked
// before the refresh token is rotated out. The library spends the token first, so a client that
// asked for too wide a scope would lose its token, and its retry would look like reuse and
// revoke the whole grant. Everything else (client binding, rotation, saving) is the library's.
import type OAuth2Server from '@node-oauth/oauth2-server';
import RefreshTokenGrantType from '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type.js';

type Request = OAuth2Server.Request;
type Client = OAuth2Server.Client;
type RefreshToken = OAuth2Server.RefreshToken;

/** The parts of the library's RefreshTokenGrantType this class uses (it ships no types for it). */
interface RefreshGrantSteps {
  getRefreshToken(request: Request, client: Client): Promise<RefreshToken>;
  getScope(request: Request, token: RefreshToken): string[] | undefined;
  revokeToken(token: RefreshToken): Promise<RefreshToken>;
  saveToken(
    user: OAuth2Server.User,
    client: Client,
    scope: string[] | undefined,
  ): Promise<OAuth2Server.Token>;
}

// Imported, not required by path: the one copy of the library the server uses (bundled or not),
// so its errors are the server's own OAuthError classes.
const LibraryRefreshGrant = RefreshTokenGrantType as new (options: object) => RefreshGrantSteps;

export class ScopeFirstRefreshGrant extends LibraryRefreshGrant {
  async handle(request: Request, client: Client): Promise<OAuth2Server.Token> {
    const token = await this.getRefreshToken(request, client);
    const scope = this.getScope(request, token);
    await this.revokeToken(token);
    return this.saveToken(token.user, client, scope);
  }
}
