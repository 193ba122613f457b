// Periodic clean-up judged on the daemon clock: the 30-day retention of events and agent
// executions, and WAL checkpoints. It runs whenever the daemon clock moves: when the sandbox
// clock is moved (services.ts runs it on the clock's `moved` event, so `svc clock advance 31d`
// purges at once) and as real time passes (a node-cron tick each minute).
import cron, { type ScheduledTask } from 'node-cron';

export interface HousekeepingTask {
  name: string;
  /**
   * Work on this daemon's own memory (the keys' last-use times): every daemon does it. The
   * others are the sandbox's, done by one daemon at a time (team mode: `isHousekeeper`).
   */
  ownMemory?: boolean;
  /** Removes what is past retention; returns how many rows went. */
  run(): number;
}

export class Housekeeping {
  private task: ScheduledTask | undefined;

  constructor(
    private readonly tasks: readonly HousekeepingTask[],
    private readonly log: {
      info(obj: object, msg: string): void;
      error(obj: object, msg: string): void;
    },
    /** Team mode: whether this daemon does the sandbox's share now (cluster/daemon-registry.ts). */
    private readonly isHousekeeper: () => boolean = () => true,
  ) {}

  start(): void {
    this.run();
    this.task = cron.schedule('* * * * *', () => this.run(), {
      name: 'svc-housekeeping',
      noOverlap: true,
    });
  }

  stop(): void {
    void this.task?.stop();
    this.task = undefined;
  }

  run(): void {
    let shared: boolean;
    try {
      shared = this.isHousekeeper();
    } catch (error) {
      this.log.error({ err: error }, 'housekeeping: could not tell which daemon does it');
      shared = false;
    }
    for (const task of this.tasks) {
      if (!task.ownMemory && !shared) continue;
      try {
        const purged = task.run();
        if (purged > 0)
          this.log.info({ purged, task: task.name }, 'expired rows removed (retention)');
      } catch (error) {
        this.log.error({ err: error, task: task.name }, 'housekeeping failed');
      }
    }
  }
}
