// Runs a live control-channel subscription until Ctrl-C (or SIGTERM); a stream error fails the
// command. Used by `svc events tail`, `svc webhooks tail` and `svc listen`.

export interface StreamHandlers<T> {
  onData: (item: T) => void;
  onError: (error: unknown) => void;
}

export function streamUntilInterrupted<T>(
  subscribe: (handlers: StreamHandlers<T>) => { unsubscribe(): void },
  onItem: (item: T) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const subscription = subscribe({ onData: onItem, onError: reject });
    const stop = () => {
      subscription.unsubscribe();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
