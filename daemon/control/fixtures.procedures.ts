// svc fixtures apply|schema: a sandbox set up from a fixture file.
import { FixtureApplyInput, fixtureJsonSchema } from '../../shared/schemas/fixtures.js';
import { FixtureApplyResult, JsonSchemaDocument } from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function fixtureProcedures({ fixtures }: ControlDeps) {
  return {
    fixtures: t.router({
      /** svc fixtures apply (`apply` is a reserved word in tRPC routers): the parsed file and the files it names; dry_run plans only. */
      applyFixture: operator
        .input(FixtureApplyInput)
        .output(FixtureApplyResult)
        .mutation(({ input }) => fixtures.apply(input)),
      /** The fixture file's JSON Schema (svc fixtures schema). */
      schema: operator.output(JsonSchemaDocument).query(() => fixtureJsonSchema()),
    }),
  };
}
