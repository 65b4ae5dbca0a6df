import { FederaClientError } from '../errors.js';
import type { Page, User } from '../types.js';
import type { NewUserBody, UserPatchBody } from '@federa/common';
import { ResourceGroup, wireBody, type Fits, type ListOptions } from './base.js';

/** Filters of `GET /user`. */
export interface UserFilters {
  /** SQL LIKE (`%` wildcards), as are `firstname`, `lastname` and `email`. */
  username?: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  organizationId?: number;
  /** Users holding this role. */
  roleId?: number;
  /** Users having this rule directly. */
  ruleId?: number;
  lastSeenFrom?: string;
  lastSeenTill?: string;
}

/** Fields of a new user. */
export interface NewUser {
  username: string;
  firstname: string;
  lastname: string;
  /** Must meet the server's password policy. Sent once, never logged. */
  password: string;
  email: string;
  /** @default the caller's organization */
  organizationId?: number;
  /** Role ids. */
  roles?: number[];
  /** Rule ids given directly. */
  rules?: number[];
}

/**
 * Fields of a user update. `roles` and `rules`, when given, replace the current ones. Only users themselves
 * change their username; nobody changes a user's organization.
 */
export interface UserUpdate {
  username?: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  /** Your current password: the server needs it (only) when you change your own `email`. Sent, never logged. */
  currentPassword?: string;
  roles?: number[];
  rules?: number[];
}

// The fields the client sends are fields of the server's request bodies (`Fits`: a compile error otherwise).
type _NewUserFits = Fits<NewUser, NewUserBody>; // POST /user
type _UserUpdateFits = Fits<UserUpdate, UserPatchBody>; // PATCH /user/{id}

/** `client.user`: user accounts. */
export class UserResource extends ResourceGroup {
  /** Lists users the caller may see, reading every page unless `options.page` is given. */
  list(filters?: UserFilters, options?: ListOptions): Promise<User[]> {
    return this.listAt('/user', filters, options);
  }

  /** Reads one page of users with the total count. */
  listPage(filters?: UserFilters, options?: { page?: number; perPage?: number }): Promise<Page<User>> {
    return this.pageAt('/user', filters, options);
  }

  /** Reads one user. @throws NotFoundError when it does not exist. */
  get(id: number): Promise<User> {
    return this.getJson(`/user/${id}`);
  }

  /** Reads the logged-in user. */
  async me(): Promise<User> {
    await this.ctx.session.accessToken();
    const id = this.ctx.session.userId;
    if (id === null)
      throw new FederaClientError('The server did not say which user this session belongs to.');
    return this.get(id);
  }

  /** Creates a user. */
  create(fields: NewUser): Promise<User> {
    return this.send('POST', '/user', wireBody(fields));
  }

  /** Changes a user. Passwords are changed with `client.changePassword`, not here. */
  update(id: number, fields: UserUpdate): Promise<User> {
    return this.send('PATCH', `/user/${id}`, wireBody(fields));
  }

  /** Deletes a user. */
  async delete(id: number): Promise<void> {
    await this.send('DELETE', `/user/${id}`);
  }
}
