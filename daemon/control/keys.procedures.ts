// svc keys create|list|revoke|rotate: API keys. A key's secret is in the create and rotate
// answers only (stored as SHA-256).
import { z } from 'zod';
import {
  KeyCreateInput,
  KeyIdInput,
  KeyListInput,
  KeyRotateInput,
} from '../../shared/schemas/control.js';
import { KeyCreated, KeyRotated, KeyView } from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';
import { keyView } from '../keys/key.view.js';

export function keyProcedures({ keys, clock }: ControlDeps) {
  return {
    keys: t.router({
      create: operator
        .input(KeyCreateInput)
        .output(KeyCreated)
        .mutation(({ input }) => {
          const { key, record } = keys.create({
            name: input.name,
            scopes: input.scopes,
            workspaceId: input.workspace_id,
            expiresInMs: input.expires_in_ms,
          });
          return { ...keyView(record), key };
        }),
      list: operator
        .input(KeyListInput)
        .output(z.array(KeyView))
        .query(({ input }) =>
          keys.list(input?.workspace_id).map((record) => keyView(record, clock.now())),
        ),
      revoke: operator
        .input(KeyIdInput)
        .output(KeyView)
        .mutation(({ input }) => keyView(keys.revoke(input.id), clock.now())),
      rotate: operator
        .input(KeyRotateInput)
        .output(KeyRotated)
        .mutation(({ input }) => {
          const { key, record, previous } = keys.rotate(input.id, input.grace_ms);
          return { ...keyView(record), key, previous: keyView(previous, clock.now()) };
        }),
    }),
  };
}
