// The tRPC client of the control channel: plain requests over HTTP, subscriptions over SSE
// (Node 20 has no global EventSource, so the eventsource package is passed in with the token).
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import type { ControlRouter } from '../daemon/control/router.js';

export type ControlClient = ReturnType<typeof createTRPCClient<ControlRouter>>;

export function createControlClient(appUrl: string, token: string): ControlClient {
  const url = `${appUrl}/trpc`;
  const authorization = `Bearer ${token}`;
  return createTRPCClient<ControlRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url,
          EventSource,
          eventSourceOptions: () => ({
            fetch: (input: string | URL | Request, init?: RequestInit) =>
              fetch(input, {
                ...init,
                headers: { ...(init?.headers as Record<string, string>), authorization },
              }),
          }),
        }),
        false: httpLink({ url, headers: { authorization } }),
      }),
    ],
  });
}
