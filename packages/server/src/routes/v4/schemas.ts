/**
 * The answers of the vantage6 4.x surface as vantage6 4.14 writes them (docs/vantage6-4.md#shapes): references to
 * one related item `{id, link, methods}` under `/v4/api`, to-many relations as link strings to a filtered listing
 * (`/v4/api/node?organization_id=4`), listings as `{data, links}`. These schemas are what its routes answer and
 * what `/v4/apidocs` describes; routes/v4/shapes.ts turns the 3.x handlers' answers into them.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { DateTime, Nullable } from '@federa/common';

const Ref = Type.Object({ id: Type.Integer(), link: Type.String(), methods: Type.Array(Type.String()) });
const NullableRef = Nullable(Ref);
const Link = (to: string) => Type.String({ description: `link to the filtered listing of ${to}` });
/** A to-many relation: its link string, or its items when `include=` asks for them. */
const LinkOrItems = (to: string, item: TSchema) =>
  Type.Unsafe<unknown>({
    description: `link to the filtered listing of ${to}; the ${to} themselves with include=${to}`,
    anyOf: [Type.String(), Type.Array(item)],
  });

export const Organization4 = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  domain: Nullable(Type.String()),
  address1: Nullable(Type.String()),
  address2: Nullable(Type.String()),
  zipcode: Nullable(Type.String()),
  country: Nullable(Type.String()),
  public_key: Type.String({ description: 'base64 of the PEM public key; "" when none' }),
  collaborations: Link('collaborations'),
  nodes: Link('nodes'),
  users: Link('users'),
  tasks: Link('tasks it initiated'),
  runs: Link('runs'),
  studies: Link('studies'),
});

export const Collaboration4 = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  encrypted: Type.Boolean(),
  organizations: Link('organizations'),
  nodes: Link('nodes'),
  tasks: Link('tasks'),
  algorithm_stores: Link('algorithm stores'),
  studies: Link('studies'),
});

export const Node4 = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  name: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  status: Nullable(Type.String()),
  last_seen: DateTime,
  organization: Ref,
  collaboration: NullableRef,
  config: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  api_key: Type.Optional(Type.String({ description: 'only in the answer to POST /node' })),
});

export const User4 = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  username: Type.String(),
  firstname: Nullable(Type.String()),
  lastname: Nullable(Type.String()),
  email: Nullable(Type.String()),
  ip: Type.Null(),
  status: Nullable(Type.String()),
  last_seen: DateTime,
  organization: Ref,
  roles: Link('roles'),
  rules: Link('rules'),
});

export const Role4 = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  organization: NullableRef,
  rules: Link('rules'),
  users: Link('users'),
});

export const Rule4 = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  operation: Type.String(),
  scope: Type.String(),
  description: Nullable(Type.String()),
  users: Link('users'),
});

const PortItem = Type.Object({ id: Type.Integer(), port: Type.Integer(), label: Nullable(Type.String()) });
const RunNode = Type.Object({
  id: Type.Optional(Type.Integer()),
  name: Type.Optional(Nullable(Type.String())),
  ip: Type.Optional(Nullable(Type.String())),
  status: Type.Optional(Nullable(Type.String())),
});

export const Result4 = Type.Object({
  id: Type.Integer(),
  result: Nullable(Type.String({ description: 'encrypted for the initiator, or base64' })),
  blob_storage_used: Type.Boolean(),
  run: Ref,
  task: Ref,
});

const runFields = {
  id: Type.Integer(),
  input: Nullable(Type.String()),
  log: Nullable(Type.String()),
  assigned_at: DateTime,
  started_at: DateTime,
  finished_at: DateTime,
  cleanup_at: DateTime,
  status: Nullable(Type.String()),
  blob_storage_used: Type.Boolean(),
  node: RunNode,
  ports: Type.Array(PortItem),
  organization: Ref,
  results: Ref,
};
const RunWithoutTask = Type.Object({ ...runFields, task: Ref });

const TaskDatabase4 = Type.Object({
  label: Type.String(),
  parameters: Type.String({
    description: 'JSON of the parameters sent with the label (query, sheet_name, …)',
  }),
});

const taskFields = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  image: Type.String(),
  status: Type.String(),
  job_id: Type.Integer({ description: 'shared by a task and its sub-tasks' }),
  created_at: DateTime,
  finished_at: DateTime,
  collaboration: NullableRef,
  study: NullableRef,
  algorithm_store: NullableRef,
  parent: NullableRef,
  init_org: NullableRef,
  init_user: NullableRef,
  children: Link('sub-tasks'),
  databases: Type.Array(TaskDatabase4),
};
const TaskNoRuns = Type.Object({ ...taskFields, results: Type.Unknown() });

export const Task4 = Type.Object({
  ...taskFields,
  runs: LinkOrItems('runs', RunWithoutTask),
  results: LinkOrItems('results', Result4),
  warning: Type.Optional(
    Type.String({ description: 'when receiving nodes are offline (the task still queues)' }),
  ),
});

export const Run4 = Type.Object({
  ...runFields,
  task: Type.Unsafe<unknown>({
    description: 'reference; the task itself with include=task',
    anyOf: [Ref, TaskNoRuns],
  }),
});

export const AlgorithmStore4 = Type.Object({
  id: Type.Integer({ description: '0: the store inside this server' }),
  name: Type.String(),
  url: Type.String({ description: "the store's address, without the API path its client adds (`/api`)" }),
  collaborations: Nullable(
    Type.String({ description: 'link to the collaboration it serves; null: all of them' }),
  ),
});

export const Study4 = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  collaboration: Ref,
  organizations: Link('organizations'),
  tasks: Link('tasks scoped to it'),
});

/** A listing of 4.x items: `{data, links}`. */
export const Listing4 = (item: TSchema) =>
  Type.Object({ data: Type.Array(item), links: Type.Record(Type.String(), Type.String()) });
