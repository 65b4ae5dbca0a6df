/**
 * The stores a researcher finds algorithms in: the store inside the server (`internal`, read through
 * `client.store`) and the stores linked to the server, for every collaboration or one (`GET /algorithmstore`),
 * read through the server (`GET /algorithmstore/{id}/algorithm`): the page may only talk to its own server.
 */
import type { StoreAlgorithm } from '@federa/client';

import { client } from '../api.js';

export interface StoreRef {
  id: number;
  name: string;
  url: string;
  collaboration_id: number | null;
  internal: boolean;
}

/** The stores this server uses; with a collaboration, those linked to it or to every collaboration. */
export const knownStores = (collaborationId?: number): Promise<StoreRef[]> =>
  client.request<StoreRef[]>(
    'GET',
    '/algorithmstore',
    collaborationId !== undefined ? { query: { collaborationId } } : {},
  );

/** What one store shows a researcher: its approved algorithms, matching `search`. */
export async function storeAlgorithms(store: StoreRef, search: string): Promise<StoreAlgorithm[]> {
  const query = { ...(search ? { search } : {}), perPage: 100 };
  if (store.internal) return client.store.list({ ...query, status: 'approved' });
  return (
    await client.request<{ data: StoreAlgorithm[] }>('GET', `/algorithmstore/${store.id}/algorithm`, {
      query,
    })
  ).data;
}

/** One algorithm of the store `storeId` (null: the store inside the server). */
export const storeAlgorithm = (storeId: number | null, id: number): Promise<StoreAlgorithm> =>
  storeId === null
    ? client.store.get(id)
    : client.request<StoreAlgorithm>('GET', `/algorithmstore/${storeId}/algorithm/${id}`);
