// Periodic clean-up on a real-time cron (node-cron), judged on the daemon clock: the 30-day
// retention of events and agent executions. It also runs right after the sandbox clock moves.
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
