// svc state export|import|reset: snapshots of the store, and a store swapped for another (the
// daemon's host carries the swap out: daemon/process/app-host.ts).
import { isAbsolute } from 'node:path';
import { StateExportInput, StateImportInput } from '../../shared/schemas/control.js';
import { ImportAnswer, ResetAnswer, SnapshotWritten } from '../../shared/schemas/control-output.js';
import { ApiError } from '../domain/errors.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function stateProcedures({ state }: ControlDeps) {
  const storeSwap = () => {
    if (!state.swap) {
      throw new ApiError('conflict', 'This daemon cannot swap its store (it runs without a host).');
    }
    return state.swap;
  };
  return {
    state: t.router({
      /** svc state export: a consistent snapshot, taken while the daemon serves. */
      export: operator
        .input(StateExportInput)
        .output(SnapshotWritten)
        .mutation(({ input }) => state.export(absolute(input.file), input.force === true)),
      /** svc state import: replaces the store with a snapshot (the daemon pauses, then resumes). */
      import: operator
        .input(StateImportInput)
        .output(ImportAnswer)
        .mutation(({ input }) =>
          storeSwap().importSnapshot({ ...input, file: absolute(input.file) }),
        ),
      /** svc state reset: an empty sandbox, as on a first start. */
      reset: operator.output(ResetAnswer).mutation(() => storeSwap().reset()),
    }),
  };
}

function absolute(file: string): string {
  if (!isAbsolute(file)) {
    throw new ApiError(
      'invalid_parameter',
      `Give the snapshot file as an absolute path, not ${file}.`,
      {
        param: 'file',
      },
    );
  }
  return file;
}
