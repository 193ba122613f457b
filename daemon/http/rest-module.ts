// A REST module: one resource's routes with the OpenAPI tag they carry, exported by the
// resource's routes file. daemon/app/resources.ts lists the modules; the app registers their
// routes and the OpenAPI document describes their tags from that one list, so a new resource
// is named once there instead of in app.ts's route list and openapi.ts's tag table.
import type { RouteDef } from './route.js';

/** The group a module's operations appear under in the OpenAPI document. */
export interface ApiTag {
  name: string;
  /** What the group is; without one, the document repeats the name. */
  description?: string;
}

export interface RestModule<D> {
  tag: ApiTag;
  /**
   * The module's routes, built from what their handlers call. D is the slice of the app's
   * services the module needs (app/resources.ts RouteDeps): a resource whose service no other
   * module uses may build it here from the core (db, commits, clock, hooks).
   */
  routes: (deps: D) => RouteDef[];
}
