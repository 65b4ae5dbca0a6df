import type { NewNode, Node, NodeOnlinePeriod, Page, Task } from '../types.js';
import type { NewNodeBody, NodePatchBody } from '@federa/common';
import { ResourceGroup, wireBody, type Fits, type ListOptions } from './base.js';

/** Filters of `GET /node`. */
export interface NodeFilters {
  organizationId?: number;
  collaborationId?: number;
  status?: 'online' | 'offline';
  ip?: string;
  /** Name, SQL LIKE (`%` wildcards). */
  name?: string;
  /** ISO-8601 date-time lower bound of `last_seen`. */
  lastSeenFrom?: string;
  /** ISO-8601 date-time upper bound of `last_seen`. */
  lastSeenTill?: string;
}

/** Fields of a new node. */
export interface NewNodeFields {
  collaborationId: number;
  /** @default the caller's organization */
  organizationId?: number;
  /** @default "<organization> - <collaboration> Node" */
  name?: string;
}

/** Fields of a node update. */
export interface NodeUpdate {
  name?: string;
  organizationId?: number;
  collaborationId?: number;
  ip?: string;
}

// The fields the client sends are fields of the server's request bodies (`Fits`: a compile error otherwise).
type _NewNodeFieldsFits = Fits<NewNodeFields, NewNodeBody>; // POST /node
type _NodeUpdateFits = Fits<NodeUpdate, NodePatchBody>; // PATCH /node/{id}

/** `client.node`: nodes. */
export class NodeResource extends ResourceGroup {
  /** Lists nodes the caller may see, reading every page unless `options.page` is given. */
  list(filters?: NodeFilters, options?: ListOptions): Promise<Node[]> {
    return this.listAt('/node', filters, options);
  }

  /** Reads one page of nodes with the total count. */
  listPage(filters?: NodeFilters, options?: { page?: number; perPage?: number }): Promise<Page<Node>> {
    return this.pageAt('/node', filters, options);
  }

  /** Reads one node. @throws NotFoundError when it does not exist. */
  get(id: number): Promise<Node> {
    return this.getJson(`/node/${id}`);
  }

  /**
   * Registers a node for an organization in a collaboration. The answer's `api_key` is shown only this once:
   * put it in the node's configuration.
   */
  create(fields: NewNodeFields): Promise<NewNode> {
    return this.send('POST', '/node', wireBody(fields));
  }

  /** Changes a node. */
  update(id: number, fields: NodeUpdate): Promise<Node> {
    return this.send('PATCH', `/node/${id}`, wireBody(fields));
  }

  /** Deletes a node. */
  async delete(id: number): Promise<void> {
    await this.send('DELETE', `/node/${id}`);
  }

  /** Generates a new API key for the node (the old one stops working) and returns it. */
  async resetApiKey(id: number): Promise<string> {
    const body = await this.send<{ api_key: string }>('POST', '/recover/node', { id });
    return body.api_key;
  }

  /**
   * One page of the periods the node was online, newest first (`GET /node/{id}/history`); the first has no
   * `ended_at` while the node is online.
   */
  history(id: number, options?: { page?: number; perPage?: number }): Promise<Page<NodeOnlinePeriod>> {
    return this.pageAt(`/node/${id}/history`, {}, options);
  }

  /** Lists the tasks of the node's collaboration (`GET /node/{id}/task`). */
  tasks(id: number, options?: ListOptions): Promise<Task[]> {
    return this.listAt(`/node/${id}/task`, {}, options);
  }
}
