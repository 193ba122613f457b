// Periodic clean-up judged on the daemon clock: the 30-day retention of events and agent
// executions, and WAL checkpoints. It runs whenever the daemon clock moves: when the sandbox
// clock is moved (services.ts runs it on the clock's `moved` event, so `svc clock advance 31d`
// purges at once) and as real time passes (a node-cron tick each minute).
import cron, { type ScheduledTask } from 'node-cron';

export interface HousekeepingTask {
  name: string;
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
    for (const task of this.tasks) {
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
