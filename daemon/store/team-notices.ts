// What one daemon tells the others serving the same sandbox, by topic (team mode): a thin hub
// over the store port's notifications (db.ts), so that each service names its topic and hears
// only its own. Without notifications (SQLite: one daemon) it is a no-op at no cost.
import { RESYNC_TOPIC, type Notifications } from './db.js';

/** The topics daemons tell each other; the payload each carries is an id or nothing. */
export type TeamTopic =
  /** The sandbox clock moved (payload ''): reload it, fire what is due. */
  | 'clock'
  /** An event was committed (payload: workspace id, tab, event id): publish it locally. */
  | 'event'
  /** A run changed (payload: id, workflow, workspace, status): waiters and live pages here. */
  | 'run'
  /** A delivery attempt's outcome was stored (payload: delivery id): svc webhooks tail. */
  | 'delivery'
  /** Keys or OAuth tokens changed (payload ''): drop the credential cache. */
  | 'credentials'
  /** Rows behind a cache's entry changed (payload: the cache's name, a space, the entry's key). */
  | 'rows'
  /** A timer was stored for later (payload: its due time on the sandbox clock): wake for it. */
  | 'timer'
  /** Work started or stopped waiting on the sandbox clock (cluster/held-elsewhere.ts). */
  | 'held';

type Listener = (payload: string) => void | Promise<void>;

export class TeamNotices {
  private readonly listeners = new Map<TeamTopic | typeof RESYNC_TOPIC, Listener[]>();
  private listening = false;

  constructor(
    private readonly notifications: Notifications | undefined,
    /** A listener that throws (the store lost meanwhile) is logged here; the others still hear. */
    private readonly onError: (error: unknown, topic: string) => void = () => undefined,
  ) {}

  /** True when other daemons may share the sandbox (PostgreSQL). */
  get shared(): boolean {
    return this.notifications !== undefined;
  }

  /** Inside a transaction: sent with its commit; outside: at once. A no-op on SQLite. */
  notify(topic: TeamTopic, payload = ''): void {
    this.notifications?.notify(topic, payload);
  }

  /** Hears `topic` from the other daemons. */
  on(topic: TeamTopic, listener: Listener): void {
    this.add(topic, listener);
  }

  /** The listening connection was lost and is back: what the others said meanwhile is missed. */
  onResync(listener: () => void | Promise<void>): void {
    this.add(RESYNC_TOPIC, listener);
  }

  private add(topic: TeamTopic | typeof RESYNC_TOPIC, listener: Listener): void {
    if (!this.notifications) return;
    this.listeners.set(topic, [...(this.listeners.get(topic) ?? []), listener]);
    if (this.listening) return;
    this.listening = true;
    this.notifications.onNotification((heard, payload) => {
      for (const each of this.listeners.get(heard as TeamTopic) ?? []) {
        try {
          void Promise.resolve(each(payload)).catch((error: unknown) => this.onError(error, heard));
        } catch (error) {
          this.onError(error, heard);
        }
      }
    });
  }
}

/** For one daemon alone (SQLite, tests, tools): tells nobody, hears nothing. */
export const ALONE = new TeamNotices(undefined);
