// svc events trigger|tail: an event published by hand (sandbox only) and the live event stream.
import { EventStreamInput, EventTriggerInput } from '../../shared/schemas/control.js';
import { asyncIterableOf, EventOutput } from '../../shared/schemas/control-output.js';
import { typeMatcher } from '../../shared/event-type-patterns.js';
import { publishByHand } from '../events/by-hand.js';
import type { ControlDeps } from './deps.js';
import { live } from './live.js';
import { operator, t } from './procedure.js';

export function eventProcedures({ events, workspaces, daemon, clock, hooks }: ControlDeps) {
  return {
    events: t.router({
      /** Sandbox only: publishes a sample (or the given) event, as if it had happened. */
      trigger: operator
        .input(EventTriggerInput)
        .output(EventOutput)
        .mutation(({ input }) =>
          publishByHand(events, {
            environment: daemon.environment,
            workspaceId: workspaces.existingId(input.workspace_id),
            type: input.type,
            data: input.data,
            nowIso: clock.iso(),
          }),
        ),
      stream: operator
        .input(EventStreamInput)
        .output(asyncIterableOf(EventOutput))
        .subscription(({ input, signal }) => {
          const filter = input ?? {};
          const matchesType = filter.types?.length ? typeMatcher(filter.types) : () => true;
          return live(
            hooks,
            'eventPublished',
            (event) =>
              (!filter.workspace_id || event.workspace_id === filter.workspace_id) &&
              matchesType(event.type),
            signal,
          );
        }),
    }),
  };
}
