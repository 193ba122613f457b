// The daemon's services for unit tests, without a server: all of them on a temp data dir, or the
// event log alone on a given store.
import type { ExecutionContext } from 'ava';
import { rmSync } from 'node:fs';
import type { Clock } from '../../daemon/time/clock.js';
import { EventRepository } from '../../daemon/events/event.repository.js';
import { EventService } from '../../daemon/events/event.service.js';
import type { Environment } from '../../daemon/domain/environment.js';
import { buildServices, type Services } from '../../daemon/app/services.js';
import { CommitQueue } from '../../daemon/store/commit-queue.js';
import { Hooks } from '../../daemon/domain/hooks.js';
import type { Db } from '../../daemon/store/db.js';
import { tempDir } from './app.js';

export const silent = { info: () => undefined, error: () => undefined };

/** Every service on a fresh data dir; timers stopped and the store closed and removed after `t`. */
export function servicesFor(t: ExecutionContext, environment: Environment = 'sandbox'): Services {
  const dataDir = tempDir();
  const svc = buildServices({ dataDir, environment }, silent);
  t.teardown(async () => {
    await svc.timers.stop();
    svc.db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return svc;
}

/**
 * Every service on `dir` (a fresh temp dir, removed after `t`, when none is given) with its timers
 * running, as in the daemon: for tests that drive runs. The engine, timers and alarms are stopped
 * and the store closed after `t`.
 */
export function runningServices(t: ExecutionContext, dir?: string): Services {
  const dataDir = dir ?? tempDir();
  const svc = buildServices({ dataDir, environment: 'sandbox' }, silent);
  svc.timers.start();
  t.teardown(async () => {
    await svc.engine.stop();
    await svc.timers.stop();
    svc.alarms.clear();
    svc.db.close();
    if (dir === undefined) rmSync(dataDir, { recursive: true, force: true });
  });
  return svc;
}

/** The event log on `db`, with its own group commit; its eventStored listeners are added to `hooks`. */
export function eventService(db: Db, clock: Clock, hooks = new Hooks()): EventService {
  const commits = new CommitQueue(db);
  return new EventService({ db, repo: new EventRepository(db, commits), clock, commits, hooks });
}
