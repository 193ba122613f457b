// svc secrets set|list|delete: workspace secrets (workflow steps and agent brains read them).
// Values never leave the daemon.
import { z } from 'zod';
import {
  SecretDeleteInput,
  SecretListInput,
  SecretSetInput,
} from '../../shared/schemas/workflows.js';
import { SecretDeleted, SecretInfo } from '../../shared/schemas/control-output.js';
import { ApiError } from '../domain/errors.js';
import { SecretNotFoundError } from '../secrets/secret.service.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function secretProcedures({ secrets, workspaces }: ControlDeps) {
  return {
    secrets: t.router({
      set: operator
        .input(SecretSetInput)
        .output(SecretInfo)
        .mutation(({ input }) =>
          secrets.set(workspaces.existingId(input.workspace_id), input.name, input.value),
        ),
      /** Names only: values never leave the daemon. */
      list: operator
        .input(SecretListInput)
        .output(z.array(SecretInfo))
        .query(({ input }) => secrets.list(workspaces.existingId(input?.workspace_id))),
      delete: operator
        .input(SecretDeleteInput)
        .output(SecretDeleted)
        .mutation(({ input }) => {
          try {
            return secrets.delete(workspaces.existingId(input.workspace_id), input.name);
          } catch (error) {
            if (error instanceof SecretNotFoundError)
              throw new ApiError('not_found', error.message);
            throw error;
          }
        }),
    }),
  };
}
