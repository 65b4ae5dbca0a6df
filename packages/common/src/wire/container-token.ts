import { Type, type Static } from '@sinclair/typebox';
import type { TaskDatabase } from './task-databases.js';

/** `POST /token/container`: a node asks for the token of an algorithm container of one of its runs. */
export const ContainerTokenRequestSchema = Type.Object({ task_id: Type.Integer(), image: Type.String() });
export type ContainerTokenRequest = Static<typeof ContainerTokenRequestSchema>;

export const ContainerTokenAnswerSchema = Type.Object({ container_token: Type.String() });
export type ContainerTokenAnswer = Static<typeof ContainerTokenAnswerSchema>;

/**
 * Who an algorithm container is: the identity object of its token (claims `sub` and `identity`,
 * docs/access-control.md#tokens), which the server signs and the algorithm tools read.
 */
export interface ContainerTokenIdentity {
  client_type: 'container';
  node_id: number;
  organization_id: number;
  collaboration_id: number;
  task_id: number;
  image: string;
  database: string | null;
  /** The databases the task asks for (`{label, type, parameters}`), read by vantage6 4.x algorithms' `@metadata`. */
  databases?: TaskDatabase[];
}
