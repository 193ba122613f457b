/** Whether a socket's remote address is this machine (IPv4 127/8, ::1, or IPv4-mapped 127/8). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
