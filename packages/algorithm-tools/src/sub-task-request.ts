/** The body of `POST /task` for a sub-task of the container's task. */
import type { ContainerIdentity } from './container-environment.js';
import { encodeJsonPayload } from './payload.js';
import type { CreateTaskOptions, SubTaskSpec } from './sub-task-types.js';

/**
 * A sub-task of the container's task for `spec.organizations`, with this task's image, collaboration and database.
 * Each organization's input is base64 of the serialized payload; the proxy encrypts it.
 */
export function subTaskRequest(identity: ContainerIdentity, spec: SubTaskSpec): Record<string, unknown> {
  if (spec.organizations.length === 0) throw new RangeError('a sub-task needs at least one organization');
  let bytes: Buffer;
  if (spec.input instanceof Uint8Array) bytes = Buffer.from(spec.input);
  else {
    if (JSON.stringify(spec.input) === undefined)
      throw new TypeError(`a ${typeof spec.input} cannot be sent as a JSON payload`);
    bytes = encodeJsonPayload(spec.input);
  }
  const input = bytes.toString('base64');
  return {
    name: spec.name ?? 'subtask',
    description: spec.description ?? `Sub-task created by the algorithm on node ${identity.nodeId}`,
    image: identity.image,
    collaboration_id: identity.collaborationId,
    database: identity.database,
    organizations: spec.organizations.map((id) => ({ id, input })),
  };
}

/** The sub-task spec that calls `options.input.method` (not as master) at each organization. */
export function methodCallSpec(options: CreateTaskOptions): SubTaskSpec {
  return {
    organizations: options.organizations,
    input: {
      method: options.input.method,
      args: options.input.args ?? [],
      kwargs: options.input.kwargs ?? {},
      master: false,
    },
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
  };
}
