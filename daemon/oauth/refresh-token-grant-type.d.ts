// The library's refresh_token grant type (refresh-grant.ts extends it): the package ships types
// for its entry point only.
declare module '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type.js' {
  const RefreshTokenGrantType: new (options: object) => unknown;
  export default RefreshTokenGrantType;
}
