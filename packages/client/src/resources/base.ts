/** What every resource group shares: the session and the client's helpers. */
import type { Cryptor } from '@federa/common';

import { snakeCase, type QueryValue } from '../http.js';
import { readList, readPage, type ListOptions } from '../pagination.js';
import type { Session } from '../session.js';
import type { TaskTraces } from '../trace-context.js';
import type { Page } from '../types.js';
import type { EventSubscription, TaskSocketEvent } from '../wait.js';

/** The parts of a {@link UserClient} that resource groups use. */
export interface ClientContext {
  readonly session: Session;
  /** The RSA cryptor of the private key given to `setupEncryption`, or `null` when there is none. */
  cryptor(): Cryptor | null;
  /** Status messages. */
  log(message: string): void;
  /** The server's warnings (the `warn` option of the client). */
  warn(message: string): void;
  /** Opens a socket and reports its events (null when no socket can be opened); absent: polling only. */
  subscribe?(onEvent: (event: TaskSocketEvent) => void): Promise<EventSubscription | null>;
  /** The trace context of the tasks this client created (trace-context.ts). */
  readonly traces: TaskTraces;
}

/** Filters of a listing: camelCase names of the API's query parameters. */
export type Filters = Record<string, QueryValue>;

/** `organization_id` → `organizationId`. */
type CamelCase<S extends string> = S extends `${infer H}_${infer R}` ? `${H}${Capitalize<CamelCase<R>>}` : S;

/** A request body of the API (declared in `@federa/common`) with its fields named as the client names them. */
export type ClientFields<B> = { [K in keyof B & string as CamelCase<K>]?: Exclude<B[K], null> };

/**
 * `C` itself, when the client's fields `C` are fields of the body `B` the server declares in `@federa/common`, each
 * with a value the server accepts; a compile error otherwise (a field the server does not know included), so the
 * client and the server cannot drift apart on what a request carries.
 */
export type Fits<C extends ClientFields<B> & Record<Exclude<keyof C, keyof ClientFields<B>>, never>, B> = C;

/** A request body with camelCase keys turned into the API's snake_case and `undefined` values left out. */
export function wireBody(fields: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[snakeCase(key)] = value;
  return out;
}

/** The common plumbing of a resource group (`client.user`, `client.task`, …). */
export abstract class ResourceGroup {
  protected readonly ctx: ClientContext;

  constructor(ctx: ClientContext) {
    this.ctx = ctx;
  }

  protected async getJson<T>(path: string, query?: Filters, traceparent?: string): Promise<T> {
    return (await this.ctx.session.request({ method: 'GET', path, ...(query ? { query } : {}), traceparent }))
      .body as T;
  }

  protected async send<T>(
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    traceparent?: string,
  ): Promise<T> {
    return (
      await this.ctx.session.request({ method, path, ...(body !== undefined ? { body } : {}), traceparent })
    ).body as T;
  }

  protected listAt<T>(
    path: string,
    filters: object | undefined,
    options: ListOptions | undefined,
    traceparent?: string,
  ): Promise<T[]> {
    return readList<T>(this.ctx.session, path, (filters ?? {}) as Filters, options, traceparent);
  }

  protected pageAt<T>(
    path: string,
    filters: object | undefined,
    options: { page?: number; perPage?: number } | undefined,
  ): Promise<Page<T>> {
    return readPage<T>(
      this.ctx.session,
      path,
      (filters ?? {}) as Filters,
      options?.page ?? 1,
      options?.perPage ?? 10,
    );
  }
}

export type { ListOptions };
