// An event published by hand (`svc events trigger`, the dashboard's "Send an event"): only in
// the sandbox environment, where nothing real depends on the event log; the given data, or a
// realistic sample of the type.
import type { EventEnvelope, EventType } from '../../shared/schemas/events.js';
import { ApiError } from '../domain/errors.js';
import type { EventService } from './event.service.js';
import { sampleEventData } from './samples.js';

export interface ByHand {
  environment: string;
  workspaceId: string;
  type: EventType;
  /** Replaces the sample when given. */
  data?: Record<string, unknown> | undefined;
  /** Now on the daemon clock, for the sample's times. */
  nowIso: string;
}

export async function publishByHand(events: EventService, request: ByHand): Promise<EventEnvelope> {
  if (request.environment !== 'sandbox') {
    throw new ApiError(
      'conflict',
      'Events can only be triggered by hand in the sandbox environment.',
    );
  }
  return events.publishAlone(
    request.workspaceId,
    request.type,
    request.data ?? sampleEventData(request.type, request.workspaceId, request.nowIso),
  );
}
