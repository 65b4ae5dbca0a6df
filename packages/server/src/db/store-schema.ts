import type { Generated, Selectable } from 'kysely';

/** The algorithm store's tables (migration 0020, docs/store.md). Times as stored text, booleans as 0/1. */
export interface StoreAlgorithmTable {
  id: Generated<number>;
  name: string;
  display_name: string | null;
  description: string | null;
  /** The image without its digest (`registry/name:tag`). */
  image: string;
  /** `sha256:…`; null until the author pins the image. An algorithm without one is never approved. */
  digest: string | null;
  code_url: string;
  documentation_url: string | null;
  partitioning: string;
  vantage6_version: string;
  submission_comments: string | null;
  status: string;
  /** The store user who submitted it. */
  developer_id: number;
  submitted_at: string;
  approved_at: string | null;
  invalidated_at: string | null;
  /** The newer version that replaced this one. */
  replaced_by_id: number | null;
}

export interface StoreFunctionTable {
  id: Generated<number>;
  algorithm_id: number;
  name: string;
  display_name: string | null;
  description: string | null;
  type: string;
  standalone: number;
  /** JSON: the arguments as the author described them. */
  arguments: string;
  /** JSON: the databases the function reads. */
  databases: string;
  /** JSON: how to show its result. */
  ui_visualizations: string;
  /** JSON: its declared output (what its result holds), or null. */
  output: string | null;
}

/** A user of the store, known by the server they log in to and their username there. */
export interface StoreUserTable {
  id: Generated<number>;
  server_url: string;
  username: string;
  organization_id: number | null;
  email: string | null;
  /** JSON list of store role names. */
  roles: string;
}

export interface StoreReviewTable {
  id: Generated<number>;
  algorithm_id: number;
  reviewer_id: number;
  requested_by_id: number;
  requested_at: string;
  submitted_at: string | null;
  status: string;
  comment: string | null;
}

export interface StorePolicyTable {
  key: string;
  /** JSON. */
  value: string;
}

/** A store a server's users may use besides the one inside the server (`GET /algorithmstore`). */
export interface AlgorithmStoreTable {
  id: Generated<number>;
  name: string;
  url: string;
  collaboration_id: number | null;
}

/** One row (id 1): moves, by trigger, with every change of algorithms, functions and policies. */
export interface StoreCatalogueVersionTable {
  id: number;
  version: number | string | bigint;
}

export interface StoreTables {
  store_algorithm: StoreAlgorithmTable;
  store_function: StoreFunctionTable;
  store_user: StoreUserTable;
  store_review: StoreReviewTable;
  store_policy: StorePolicyTable;
  algorithm_store: AlgorithmStoreTable;
  store_catalogue_version: StoreCatalogueVersionTable;
}

/**
 * A table's row as a query reads it. Named `…Row`, apart from the wire types of `@federa/common` (what the API
 * answers, e.g. `Task`), which serializers/ build from rows.
 */
export type StoreAlgorithmRow = Selectable<StoreAlgorithmTable>;
export type StoreFunctionRow = Selectable<StoreFunctionTable>;
export type StoreUserRow = Selectable<StoreUserTable>;
export type StoreReviewRow = Selectable<StoreReviewTable>;
