import { Type } from '@sinclair/typebox';
import type { OutputDeclaration } from '@federa/common';
import type {
  StoreAlgorithmRow,
  StoreFunctionRow,
  StoreReviewRow,
  StoreUserRow,
} from '../db/store-schema.js';
import { toApiTime } from '../http/datetime.js';
import { storedRoles } from './roles.js';
import type { ArgumentDescription, DatabaseDescription, VisualizationDescription } from './description.js';

/** The store's answers, in the shapes of vantage6 4.x's store (docs/store.md#api). */

const json = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return [];
  }
};

export function functionAnswer(f: StoreFunctionRow) {
  return {
    id: f.id,
    name: f.name,
    display_name: f.display_name,
    description: f.description,
    type: f.type,
    standalone: f.standalone === 1,
    arguments: json(f.arguments) as ArgumentDescription[],
    databases: json(f.databases) as DatabaseDescription[],
    ui_visualizations: json(f.ui_visualizations) as VisualizationDescription[],
    // Federa's field: what the result holds, for the nodes' disclosure checks (null: nothing declared).
    output: f.output === null ? null : (json(f.output) as OutputDeclaration),
  };
}

export function algorithmAnswer(
  a: StoreAlgorithmRow,
  functions: readonly StoreFunctionRow[],
  apiPath: string,
) {
  return {
    id: a.id,
    name: a.name,
    display_name: a.display_name,
    description: a.description,
    image: a.image,
    digest: a.digest,
    status: a.status,
    code_url: a.code_url,
    documentation_url: a.documentation_url,
    partitioning: a.partitioning,
    vantage6_version: a.vantage6_version,
    submission_comments: a.submission_comments,
    developer_id: a.developer_id,
    submitted_at: toApiTime(a.submitted_at),
    approved_at: toApiTime(a.approved_at),
    invalidated_at: toApiTime(a.invalidated_at),
    replaced_by_id: a.replaced_by_id,
    functions: functions.filter((f) => f.algorithm_id === a.id).map(functionAnswer),
    reviews: `${apiPath}/review?algorithm_id=${a.id}`,
  };
}

export function reviewAnswer(r: StoreReviewRow, users: ReadonlyMap<number, StoreUserRow>) {
  const person = (id: number) => {
    const u = users.get(id);
    return u
      ? { id: u.id, username: u.username, server_url: u.server_url, organization_id: u.organization_id }
      : { id };
  };
  return {
    id: r.id,
    algorithm_id: r.algorithm_id,
    reviewer: person(r.reviewer_id),
    requested_by: person(r.requested_by_id),
    requested_at: toApiTime(r.requested_at),
    submitted_at: toApiTime(r.submitted_at),
    status: r.status,
    comment: r.comment,
  };
}

export function userAnswer(u: StoreUserRow) {
  return {
    id: u.id,
    username: u.username,
    server_url: u.server_url,
    organization_id: u.organization_id,
    email: u.email,
    roles: storedRoles(u.roles),
  };
}

// OpenAPI schemas of the answers (documentation only: answers are written as built above).

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ArgumentSchema = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  type: Type.String({
    description:
      'column, column_list, string, string_list, integer, integer_list, float, float_list, boolean, json, organization, organization_list',
  }),
  allowed_values: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
  has_default_value: Type.Optional(Type.Boolean()),
  default_value: Type.Optional(Type.String()),
  conditional_on: Type.Optional(Type.String()),
  conditional_operator: Type.Optional(Type.String()),
  conditional_value: Type.Optional(Type.String()),
  is_frontend_only: Type.Optional(Type.Boolean()),
});

export const FunctionSchema = Type.Object({
  id: Type.Optional(Type.Integer()),
  name: Type.String(),
  display_name: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Nullable(Type.String())),
  type: Type.String({ description: 'central or federated' }),
  standalone: Type.Optional(Type.Boolean()),
  arguments: Type.Optional(Type.Array(ArgumentSchema)),
  databases: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()) })),
  ),
  ui_visualizations: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        description: Type.Optional(Type.String()),
        type: Type.String({ description: 'table, line or histogram' }),
        schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
      }),
    ),
  ),
  output: Type.Optional(
    Type.Union([Type.Object({ kind: Type.String() }, { additionalProperties: true }), Type.Null()], {
      description:
        'Federa: what the result holds (count_table, group_means, model_coefficients and the result keys), checked by nodes against their disclosure thresholds',
    }),
  ),
});

/** The author's description (`POST /algorithm`), as vantage6's store takes it. */
export const AlgorithmInputSchema = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  image: Type.String({ description: 'registry/name:tag, pinned with @sha256:… to be approvable' }),
  partitioning: Type.String({ description: 'horizontal or vertical' }),
  vantage6_version: Type.String({ description: 'the contract the image speaks, e.g. 4.14 or federa' }),
  code_url: Type.String(),
  documentation_url: Type.Optional(Type.String()),
  submission_comments: Type.Optional(Type.String()),
  functions: Type.Array(FunctionSchema),
});

export const AlgorithmSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  display_name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  image: Type.String(),
  digest: Nullable(Type.String()),
  status: Type.String(),
  code_url: Type.String(),
  documentation_url: Nullable(Type.String()),
  partitioning: Type.String(),
  vantage6_version: Type.String(),
  submission_comments: Nullable(Type.String()),
  developer_id: Type.Integer(),
  submitted_at: Nullable(Type.String()),
  approved_at: Nullable(Type.String()),
  invalidated_at: Nullable(Type.String()),
  replaced_by_id: Type.Union([Type.Integer(), Type.Null()]),
  functions: Type.Array(FunctionSchema),
  reviews: Type.String(),
});
