// Opens a control-channel subscription and waits until it is live (the daemon listens from
// then on), for commands that start something and must not miss what follows: run --wait
// (run events), replay --wait (delivery attempts). Undefined when it cannot be opened in time
// (e.g. --api-key against a daemon whose control token this user cannot read): those commands
// poll the REST API then, a little later but just as surely.
import type { CliContext } from './context.js';
import type { ControlClient } from './control-client.js';

const SUBSCRIBE_WAIT_MS = 3_000;

export interface LiveHandlers<T> {
  onStarted(): void;
  onData(item: T): void;
  onError(error: unknown): void;
}

export async function openLiveStream<T>(
  ctx: CliContext,
  subscribe: (control: ControlClient, handlers: LiveHandlers<T>) => { unsubscribe(): void },
  onItem: (item: T) => void,
): Promise<{ unsubscribe(): void } | undefined> {
  let control: ControlClient;
  try {
    control = await ctx.control();
  } catch {
    return undefined;
  }
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: { unsubscribe(): void } | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const subscription = subscribe(control, {
      onStarted: () => settle(subscription),
      onData: onItem,
      onError: () => {
        subscription.unsubscribe();
        settle(undefined);
      },
    });
    // A stream that does not open in time is given up: the poll still follows.
    const timer = setTimeout(() => {
      subscription.unsubscribe();
      settle(undefined);
    }, SUBSCRIBE_WAIT_MS);
  });
}
