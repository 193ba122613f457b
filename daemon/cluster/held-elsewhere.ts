// Work another daemon of the sandbox holds on the sandbox clock (team mode): a step in flight
// that waits for a later time (an injected latency, an agent's execution), or a timer whose
// handler is parked so. `svc settle` on any daemon leaves it out, as the daemon holding it does:
// only a clock move ends it. Without this, settle on one daemon waited until its timeout for
// what another daemon held (the stored state shows such a step as ready, such a timer as due).
//
// Told by notices rather than stored: a hold lasts as long as its daemon's memory of it. Notices
// are at most once, so an entry errs towards waiting: it goes when its daemon says the hold
// ended, when this daemon starts the same work itself (it took the holder over), or when
// notices were missed (a resync drops them all: settle then waits, it never returns early).
import type { TeamNotices } from '../store/team-notices.js';

export type HeldKind = 'step' | 'timer';

interface HeldNotice {
  kind: HeldKind;
  id: string;
  held: boolean;
}

export class HeldElsewhere {
  private readonly held = new Set<string>();

  constructor(
    private readonly notices: TeamNotices,
    private readonly kind: HeldKind,
  ) {
    notices.on('held', (payload) => this.heard(payload));
    notices.onResync(() => this.held.clear());
  }

  /** This daemon starts (true) or stops (false) holding `id`: tells the others. */
  tell(id: string, holding: boolean): void {
    if (!this.notices.shared) return;
    const notice: HeldNotice = { kind: this.kind, id, held: holding };
    try {
      this.notices.notify('held', JSON.stringify(notice));
    } catch {
      // The store is away: the others' settle may wait for this hold until its timeout, or
      // until their listening connection is back (a resync drops what they were told).
    }
  }

  /** Another daemon holds `id` on the sandbox clock. */
  has(id: string): boolean {
    return this.held.has(id);
  }

  /** This daemon runs `id` now: what another said of it is past. */
  forget(id: string): void {
    this.held.delete(id);
  }

  private heard(payload: string): void {
    let notice: Partial<HeldNotice>;
    try {
      notice = JSON.parse(payload) as Partial<HeldNotice>;
    } catch {
      return; // Not one of ours.
    }
    if (notice.kind !== this.kind || typeof notice.id !== 'string') return;
    if (notice.held === true) this.held.add(notice.id);
    else this.held.delete(notice.id);
  }
}
