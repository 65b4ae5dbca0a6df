/**
 * Tasks and results are shown in several linked forms (docs/api.md#task, docs/api.md#result), so both live in this file:
 * task; task with results; result; result with task; task-result (ids instead of references).
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  BodyField,
  DateTime,
  Nullable,
  NullableReference,
  ReferenceList,
  ReferenceSchema,
} from './fields.js';
import { TaskDatabasesSchema } from './task-databases.js';

const PortItem = Type.Object({ id: Type.Integer(), port: Type.Integer(), label: Nullable(Type.String()) });
const EmbeddedNode = Type.Object({
  id: Type.Optional(Type.Integer()),
  name: Type.Optional(Nullable(Type.String())),
  ip: Type.Optional(Nullable(Type.String())),
  status: Type.Optional(Nullable(Type.String())),
});

/**
 * One organization's run of a task. `input` is encrypted for that organization (base64 in an unencrypted
 * collaboration); `result` is encrypted for the task's initiator, `null` until the run finished.
 */
const resultFields = {
  id: Type.Integer(),
  input: Nullable(Type.String()),
  result: Nullable(Type.String()),
  log: Nullable(Type.String()),
  assigned_at: DateTime,
  started_at: DateTime,
  finished_at: DateTime,
  status: Nullable(Type.String()),
  node: EmbeddedNode,
  ports: Type.Array(PortItem),
  result_stored: Type.Optional(
    Nullable(
      Type.Object(
        {
          size: Type.Integer({ minimum: 0, description: 'bytes of the output (the text of `result`)' }),
          sha256: Type.String({ description: 'SHA-256 of those bytes, hex' }),
        },
        {
          description:
            'Federa: the output is held in the result store; read it from GET /result/{id}/output (docs/large-results.md). `result` is then null.',
        },
      ),
    ),
  ),
};

/** Result in the task-result form: `task` and `organization` as plain ids. */
export const TaskResultSchema = Type.Object(
  { ...resultFields, task: Type.Integer(), organization: Type.Integer() },
  { $id: 'TaskResult' },
);
const EmbeddedTaskResult = Type.Object({ ...resultFields, organization: Type.Integer() });

const taskFields = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  image: Type.String(),
  database: Nullable(Type.String()),
  databases: Type.Optional(
    Nullable(
      Type.Unsafe<Static<typeof TaskDatabasesSchema>>({
        ...TaskDatabasesSchema,
        description:
          'Federa: the databases the task asks for, `{label, type, parameters}` each (the vantage6 4.x field); null when it named only `database`',
      }),
    ),
  ),
  run_id: Type.Integer(),
  api: Type.Optional(
    Type.String({
      description:
        'Federa: `v4` when the task was made on the vantage6 4.x surface (its algorithm gets a 4.x proxy); absent otherwise',
    }),
  ),
  study_id: Type.Optional(
    Type.Integer({ description: 'Federa: the study the task is scoped to (vantage6 4.x); absent otherwise' }),
  ),
  store_id: Type.Optional(
    Type.Integer({
      description:
        "Federa: the store whose algorithm the task runs, 0 the server's own (`store_algorithm_id`); absent otherwise",
    }),
  ),
  store_algorithm_id: Type.Optional(
    Type.Integer({
      description:
        "Federa: the algorithm the task runs, its id in the store `store_id` (that store's `GET /algorithm/{id}`); absent otherwise",
    }),
  ),
  initiator: Type.Integer({ description: 'id of the initiating organization' }),
  init_org: Type.Integer({ description: 'same as initiator (read by vantage6 3.5.0 nodes)' }),
  init_user: Nullable(Type.Integer()),
  collaboration: NullableReference,
  parent: NullableReference,
  children: ReferenceList,
  complete: Type.Boolean(),
  status: Type.String(),
  finished_at: DateTime,
  created_at: DateTime,
  cancel_on_failure: Type.Boolean({
    description: "Federa: when one run fails, the task's pending runs are cancelled (docs/run-statuses.md)",
  }),
  traceparent: Type.Optional(
    Type.String({
      description:
        'Federa: the W3C trace context of the request that created the task; absent when it had none (docs/observability.md#traces)',
    }),
  ),
};

export const TaskSchema = Type.Object({ ...taskFields, results: ReferenceList }, { $id: 'Task' });
export const TaskWithResultsSchema = Type.Object(
  { ...taskFields, results: Type.Array(EmbeddedTaskResult) },
  { $id: 'TaskWithResults' },
);
const TaskNoResults = Type.Object(taskFields);
/** The answer to `POST /task`: the task, and a `warning` when receiving nodes are offline (the task still queues). */
export const CreatedTaskSchema = Type.Composite([
  Type.Omit(TaskSchema, []),
  Type.Object({ warning: Type.Optional(Type.String()) }),
]);

export const ResultSchema = Type.Object(
  { ...resultFields, task: ReferenceSchema, organization: ReferenceSchema },
  { $id: 'Result' },
);
export const ResultWithTaskSchema = Type.Object(
  { ...resultFields, task: TaskNoResults, organization: ReferenceSchema },
  { $id: 'ResultWithTask' },
);

export type Task = Static<typeof TaskSchema>;
export type TaskWithResults = Static<typeof TaskWithResultsSchema>;
export type CreatedTask = Static<typeof CreatedTaskSchema>;
export type Result = Static<typeof ResultSchema>;
export type ResultWithTask = Static<typeof ResultWithTaskSchema>;
export type TaskResult = Static<typeof TaskResultSchema>;

/** Body of `POST /task` (docs/api.md#tasks). */
export const NewTaskBodySchema = Type.Object({
  collaboration_id: Type.Integer({ description: 'the collaboration the task belongs to' }),
  organizations: Type.Array(
    Type.Object({
      id: Type.Integer({ description: 'a receiving organization' }),
      input: Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
        description:
          'input for this organization: encrypted for it, or base64 when the collaboration is not encrypted',
      }),
    }),
    { minItems: 1, description: 'one entry per organization that must run the task' },
  ),
  name: BodyField(Type.String({ description: 'default ""' })),
  description: BodyField(Type.String({ description: 'default ""' })),
  image: BodyField(Type.String({ description: 'the algorithm image; default ""' })),
  database: BodyField(
    Type.String({ description: 'the database label the nodes use (clients send "default")' }),
  ),
  databases: Type.Optional(TaskDatabasesSchema),
  master: Type.Optional(
    Type.Boolean({ description: 'users only: run only at the own organization (vantage6 ≤ 3.10)' }),
  ),
  store_algorithm_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'run this approved store algorithm (docs/store.md): the task gets its image at the approved digest and its input is checked against the function',
    }),
  ),
  algorithm_store_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "the linked store of store_algorithm_id (GET /algorithmstore); left out: this server's",
    }),
  ),
  study_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'scope the task to a study of its collaboration: only its organizations may receive it',
    }),
  ),
  cancel_on_failure: Type.Optional(
    Type.Boolean({
      description:
        "when one run fails, cancel the task's runs still pending (docs/run-statuses.md); default false",
    }),
  ),
});
export type NewTaskBody = Static<typeof NewTaskBodySchema>;
