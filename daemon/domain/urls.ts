// The daemon's addresses. Known only after listen (port 0 picks one), so it is a mutable holder.
export interface ServerUrls {
  /** {app_url}: http://host:port */
  app: string;
  /** {base_url}: http://host:port/v1 */
  base: string;
}

export function serverUrls(host: string, port: number): ServerUrls {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const app = `http://${hostPart}:${port}`;
  return { app, base: `${app}/v1` };
}
