// Ctrl-C (or a SIGTERM) during a wait that the CLI can leave cleanly: the command stops waiting
// and says where things stand instead of dying mid-wait. Used by the loops that follow a run
// and wait for delivery attempts; both sleep between looks, so the signal must wake them too.

export interface Interrupt {
  /** True once SIGINT or SIGTERM came. */
  readonly interrupted: boolean;
  /** Stops listening (call in `finally`): a later signal acts as it would without this wait. */
  remove(): void;
}

/** Listens for one SIGINT or SIGTERM, which sets `interrupted` and calls `wake`. */
export function onInterrupt(wake: () => void): Interrupt {
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    wake();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    get interrupted() {
      return interrupted;
    },
    remove() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
