// The local HTTP servers the tests stand up (a webhook receiver, a fake model server): on
// 127.0.0.1, a port the OS picks, and closed with every connection they still hold.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1:0; answers the origin (http://127.0.0.1:<port>). */
export async function listenLocally(server: Server): Promise<string> {
  // Clients that give up (a timeout) reset the connection: that is not an error here.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server and drops the connections it still holds (kept-alive or hanging). */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
