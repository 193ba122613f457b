// Periodic clean-up on a real-time cron (node-cron), judged on the daemon clock: retention of
// events (30 days). It also runs right after the sandbox clock moves.
import cron, { type ScheduledTask } from 'node-cron';
import type { EventService } from './events/event.service.js';

export class Housekeeping {
  private task: ScheduledTask | undefined;

  constructor(
    private readonly events: EventService,
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
    try {
      const purged = this.events.purgeExpired();
      if (purged > 0) this.log.info({ purged }, 'expired events removed (30-day retention)');
    } catch (error) {
      this.log.error({ err: error }, 'housekeeping failed');
    }
  }
}
