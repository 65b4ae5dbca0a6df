import type { Organization, Page } from '../types.js';
import type { OrganizationBody } from '@federa/common';
import { ResourceGroup, wireBody, type Fits, type ListOptions } from './base.js';

/** Filters of `GET /organization`. */
export interface OrganizationFilters {
  /** Name, SQL LIKE: supply `%` wildcards yourself (`%hospital%`). */
  name?: string;
  /** Exact country. */
  country?: string;
  /** Only members of this collaboration. */
  collaborationId?: number;
}

/** Fields of a new or updated organization. */
export interface OrganizationFields {
  name?: string;
  address1?: string;
  address2?: string;
  zipcode?: string;
  country?: string;
  domain?: string;
  /** Base64 of the PEM public key (see `publicKeyBase64` in `@federa/common`). */
  publicKey?: string;
}

// The fields the client sends are fields of the server's request bodies (`Fits`: a compile error otherwise).
type _OrganizationFieldsFits = Fits<OrganizationFields, OrganizationBody>; // POST and PATCH /organization

/** `client.organization`: organizations (there is no delete in the API). */
export class OrganizationResource extends ResourceGroup {
  /** Lists organizations the caller may see, reading every page unless `options.page` is given. */
  list(filters?: OrganizationFilters, options?: ListOptions): Promise<Organization[]> {
    return this.listAt('/organization', filters, options);
  }

  /** Reads one page of organizations with the total count. */
  listPage(
    filters?: OrganizationFilters,
    options?: { page?: number; perPage?: number },
  ): Promise<Page<Organization>> {
    return this.pageAt('/organization', filters, options);
  }

  /** Reads one organization. @throws NotFoundError when it does not exist. */
  get(id: number): Promise<Organization> {
    return this.getJson(`/organization/${id}`);
  }

  /** Creates an organization (needs the global organization create rule). */
  create(fields: OrganizationFields): Promise<Organization> {
    return this.send('POST', '/organization', wireBody(fields));
  }

  /** Changes fields of an organization; fields left out are kept. */
  update(id: number, fields: OrganizationFields): Promise<Organization> {
    return this.send('PATCH', `/organization/${id}`, wireBody(fields));
  }
}
