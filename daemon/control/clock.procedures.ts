// svc clock show|advance|set|reset|freeze|resume: the sandbox clock (ClockService persists a
// move and fires what fell due before answering).
import { ClockAdvanceInput, ClockSetInput } from '../../shared/schemas/control.js';
import { ClockState } from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function clockProcedures({ clockService }: ControlDeps) {
  return {
    clock: t.router({
      show: operator.output(ClockState).query(() => clockService.show()),
      advance: operator
        .input(ClockAdvanceInput)
        .output(ClockState)
        .mutation(({ input }) => clockService.advance(input.ms)),
      set: operator
        .input(ClockSetInput)
        .output(ClockState)
        .mutation(({ input }) => clockService.set(Date.parse(input.to), input.frozen)),
      reset: operator.output(ClockState).mutation(() => clockService.reset()),
      /** Only advance and set move a frozen clock. */
      freeze: operator.output(ClockState).mutation(() => clockService.freeze()),
      resume: operator.output(ClockState).mutation(() => clockService.resume()),
    }),
  };
}
