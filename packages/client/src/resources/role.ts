import type { Page, Role, Rule } from '../types.js';
import type { NewRoleBody, RolePatchBody } from '@federa/common';
import { ResourceGroup, wireBody, type Fits, type ListOptions } from './base.js';

/** Filters of `GET /role`. */
export interface RoleFilters {
  /** Roles of these organizations (one id or several). */
  organizationId?: number | number[];
  /** With `organizationId`: also the default roles, which belong to no organization. */
  includeRoot?: boolean;
  /** SQL LIKE (`%` wildcards). */
  name?: string;
  /** SQL LIKE (`%` wildcards). */
  description?: string;
  /** Roles containing this rule. */
  ruleId?: number;
  /** Roles held by this user. */
  userId?: number;
}

/** Fields of a new role. */
export interface NewRole {
  name: string;
  description: string;
  /** Rule ids; you must hold every one of them yourself. */
  rules?: number[];
  /** @default the caller's organization */
  organizationId?: number;
}

/** Fields of a role update; `rules`, when given, replaces the role's rules. */
export interface RoleUpdate {
  name?: string;
  description?: string;
  rules?: number[];
}

// The fields the client sends are fields of the server's request bodies (`Fits`: a compile error otherwise).
type _NewRoleFits = Fits<NewRole, NewRoleBody>; // POST /role
type _RoleUpdateFits = Fits<RoleUpdate, RolePatchBody>; // PATCH /role/{id}

/** `client.role`: roles, bundles of rules. */
export class RoleResource extends ResourceGroup {
  /** Lists roles the caller may see, reading every page unless `options.page` is given. */
  list(filters?: RoleFilters, options?: ListOptions): Promise<Role[]> {
    return this.listAt('/role', filters, options);
  }

  /** Reads one page of roles with the total count. */
  listPage(filters?: RoleFilters, options?: { page?: number; perPage?: number }): Promise<Page<Role>> {
    return this.pageAt('/role', filters, options);
  }

  /** Reads one role. @throws NotFoundError when it does not exist. */
  get(id: number): Promise<Role> {
    return this.getJson(`/role/${id}`);
  }

  /** Creates a role. */
  create(fields: NewRole): Promise<Role> {
    return this.send('POST', '/role', wireBody(fields));
  }

  /** Changes a role. */
  update(id: number, fields: RoleUpdate): Promise<Role> {
    return this.send('PATCH', `/role/${id}`, wireBody(fields));
  }

  /** Deletes a role. */
  async delete(id: number): Promise<void> {
    await this.send('DELETE', `/role/${id}`);
  }

  /** Lists the rules of a role. */
  rules(id: number, options?: ListOptions): Promise<Rule[]> {
    return this.listAt(`/role/${id}/rule`, {}, options);
  }

  /** Adds one rule to a role. */
  async addRule(id: number, ruleId: number): Promise<void> {
    await this.send('POST', `/role/${id}/rule/${ruleId}`);
  }

  /** Removes one rule from a role. */
  async removeRule(id: number, ruleId: number): Promise<void> {
    await this.send('DELETE', `/role/${id}/rule/${ruleId}`);
  }
}
