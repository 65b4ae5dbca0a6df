/**
 * Who an algorithm container is (the identity in its token) and where its node's proxy is (the container
 * environment, docs/container-environment.md#environment-variables).
 */
import { readFileSync } from 'node:fs';
// Types only: erased from the build, so a container loads nothing of @federa/common for them.
import type { ContainerTokenIdentity } from '@federa/common';

import { DEFAULT_ERRORS, type AlgorithmClientErrors } from './algorithm-client-errors.js';

/** Who the container is: the identity inside its token. */
export interface ContainerIdentity {
  /** The node that runs the container. */
  readonly nodeId: number;
  /** That node's organization (sub-task results are encrypted for it). */
  readonly organizationId: number;
  /** The collaboration of the task. */
  readonly collaborationId: number;
  /** The task the container runs for; sub-tasks get it as parent. */
  readonly taskId: number;
  /** The task's image; sub-tasks use it too. */
  readonly image: string;
  /** The task's database label (`null` from servers that do not put it in the token). */
  readonly database: string | null;
}

/** Where the proxy is and which token to use. */
export interface AlgorithmClientOptions {
  /** Scheme and host of the proxy, e.g. `http://proxyserver` (env `HOST`). */
  readonly host: string;
  /** Port of the proxy, e.g. `8080` (env `PORT`). */
  readonly port: number | string;
  /**
   * Path prefix of the proxy (env `API_PATH`).
   * @default ""
   */
  readonly apiPath?: string;
  /** The container token (contents of the file named by env `TOKEN_FILE`). */
  readonly token: string;
  /**
   * How long one HTTP request may take.
   * @default 30000
   */
  readonly timeoutMs?: number;
  /**
   * How long a request is tried again while the node's proxy cannot be reached or answers 502/503/504 (the node is
   * restarting): with back-off, then the failure is thrown. 0: never again.
   * @default 120000
   */
  readonly retryForMs?: number;
  /** How failures are reported; default: the error classes of this module. */
  readonly errors?: AlgorithmClientErrors;
}

/** Reads the container identity out of a token (claim `identity` if present, else `sub`), without verifying it. */
export function containerIdentity(
  token: string,
  errors: AlgorithmClientErrors = DEFAULT_ERRORS,
): ContainerIdentity {
  let claims: Record<string, unknown>;
  try {
    const parts = token.trim().split('.');
    if (parts.length !== 3 || !parts[1]) throw new Error('not a JWT: expected three dot-separated parts');
    const parsed: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('not a JWT: the payload is not a JSON object');
    claims = parsed as Record<string, unknown>;
  } catch (error) {
    throw errors.invalid(`The container token cannot be read: ${(error as Error).message}.`, error);
  }
  const raw = (
    typeof claims.identity === 'object' && claims.identity !== null ? claims.identity : claims.sub
  ) as Partial<Record<keyof ContainerTokenIdentity, unknown>> | undefined;
  if (typeof raw !== 'object' || raw === null)
    throw errors.invalid('The token is not a container token: its identity is not an object.');
  const int = (key: keyof ContainerTokenIdentity): number => {
    const v = raw[key];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
    throw errors.invalid(`The container token has no integer "${key}" in its identity.`);
  };
  if (typeof raw.image !== 'string')
    throw errors.invalid('The container token has no "image" in its identity.');
  return {
    nodeId: int('node_id'),
    organizationId: int('organization_id'),
    collaborationId: int('collaboration_id'),
    taskId: int('task_id'),
    image: raw.image,
    database: typeof raw.database === 'string' ? raw.database : null,
  };
}

/**
 * The client's options from the container environment: `HOST`, `PORT`, `API_PATH` and the token in the file named
 * by `TOKEN_FILE`, as the node sets them (docs/container-environment.md#environment-variables).
 */
export function optionsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  errors: AlgorithmClientErrors = DEFAULT_ERRORS,
): AlgorithmClientOptions {
  const need = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '')
      throw errors.invalid(
        `Environment variable ${name} is not set; is this running in an algorithm container?`,
      );
    return value;
  };
  const host = need('HOST');
  const portText = need('PORT');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw errors.invalid(`Environment variable PORT must be a port number, got "${portText}".`);
  const tokenFile = need('TOKEN_FILE');
  let token: string;
  try {
    token = readFileSync(tokenFile, 'utf8');
  } catch (error) {
    throw errors.invalid(
      `Cannot read the token file ${tokenFile} (TOKEN_FILE): ${(error as Error).message}`,
      error,
    );
  }
  return { host, port, apiPath: env.API_PATH ?? '', token, errors };
}
