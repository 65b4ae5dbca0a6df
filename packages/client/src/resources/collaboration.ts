import type { Collaboration, Node, Organization, Page, Task } from '../types.js';
import type { CollaborationPatchBody, NewCollaborationBody } from '@federa/common';
import { ResourceGroup, wireBody, type Fits, type ListOptions } from './base.js';

/** Filters of `GET /collaboration`. */
export interface CollaborationFilters {
  /** Name, SQL LIKE (`%` wildcards). */
  name?: string;
  encrypted?: boolean;
  /** Only collaborations this organization is a member of. */
  organizationId?: number;
}

/** Fields of a new collaboration. */
export interface NewCollaboration {
  /** Unique name. */
  name: string;
  /** The member organizations. */
  organizationIds: number[];
  /**
   * Whether task inputs and results are end-to-end encrypted.
   * @default false
   */
  encrypted?: boolean;
}

// The fields the client sends are fields of the server's request bodies (`Fits`: a compile error otherwise).
type _NewCollaborationFits = Fits<NewCollaboration, NewCollaborationBody>; // POST /collaboration
type _PartialNewCollaborationFits = Fits<Partial<NewCollaboration>, CollaborationPatchBody>; // PATCH /collaboration/{id}

/** `client.collaboration`: collaborations and their members. */
export class CollaborationResource extends ResourceGroup {
  /** Lists collaborations the caller may see, reading every page unless `options.page` is given. */
  list(filters?: CollaborationFilters, options?: ListOptions): Promise<Collaboration[]> {
    const { encrypted, ...rest } = filters ?? {};
    return this.listAt(
      '/collaboration',
      { ...rest, encrypted: encrypted === undefined ? undefined : encrypted ? 1 : 0 },
      options,
    );
  }

  /** Reads one page of collaborations with the total count. */
  listPage(
    filters?: CollaborationFilters,
    options?: { page?: number; perPage?: number },
  ): Promise<Page<Collaboration>> {
    const { encrypted, ...rest } = filters ?? {};
    return this.pageAt(
      '/collaboration',
      { ...rest, encrypted: encrypted === undefined ? undefined : encrypted ? 1 : 0 },
      options,
    );
  }

  /** Reads one collaboration. @throws NotFoundError when it does not exist. */
  get(id: number): Promise<Collaboration> {
    return this.getJson(`/collaboration/${id}`);
  }

  /** Creates a collaboration (needs the global collaboration create rule). */
  create(fields: NewCollaboration): Promise<Collaboration> {
    return this.send('POST', '/collaboration', wireBody({ ...fields, encrypted: fields.encrypted ?? false }));
  }

  /** Changes a collaboration; `organizationIds`, when given, replaces the whole member list. */
  update(id: number, fields: Partial<NewCollaboration>): Promise<Collaboration> {
    return this.send('PATCH', `/collaboration/${id}`, wireBody(fields));
  }

  /** Deletes a collaboration (its nodes and tasks stay). */
  async delete(id: number): Promise<void> {
    await this.send('DELETE', `/collaboration/${id}`);
  }

  /** Lists the member organizations. */
  organizations(id: number, options?: ListOptions): Promise<Organization[]> {
    return this.listAt(`/collaboration/${id}/organization`, {}, options);
  }

  /** Adds a member organization; returns the members after the change. */
  addOrganization(id: number, organizationId: number): Promise<Organization[]> {
    return this.send('POST', `/collaboration/${id}/organization`, { id: organizationId });
  }

  /** Removes a member organization; returns the remaining members. */
  removeOrganization(id: number, organizationId: number): Promise<Organization[]> {
    return this.send('DELETE', `/collaboration/${id}/organization`, { id: organizationId });
  }

  /**
   * The column names a tabular database has at the collaboration's nodes (`GET /column`), for a task form's column
   * pickers: names only, each with the organizations that have it, and the organizations whose node shared none.
   */
  columns(
    id: number,
    database = 'default',
  ): Promise<{
    data: { name: string; organization_ids: number[] }[];
    database: string;
    not_shared: number[];
  }> {
    return this.getJson('/column', { collaboration_id: id, database });
  }

  /** Lists the nodes of the collaboration (in the API's short form). */
  nodes(id: number, options?: ListOptions): Promise<Node[]> {
    return this.listAt(`/collaboration/${id}/node`, {}, options);
  }

  /** Moves a node into the collaboration; returns its nodes after the change. */
  addNode(id: number, nodeId: number): Promise<Node[]> {
    return this.send('POST', `/collaboration/${id}/node`, { id: nodeId });
  }

  /** Detaches a node from the collaboration. */
  async removeNode(id: number, nodeId: number): Promise<void> {
    await this.send('DELETE', `/collaboration/${id}/node`, { id: nodeId });
  }

  /** Lists the tasks of the collaboration. */
  tasks(id: number, options?: ListOptions): Promise<Task[]> {
    return this.listAt(`/collaboration/${id}/task`, {}, options);
  }
}
