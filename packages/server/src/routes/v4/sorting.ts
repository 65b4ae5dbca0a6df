/**
 * vantage6 4.x's `sort=` on the listings of the 4.x surface (docs/vantage6-4.md#listings): a comma-separated list of
 * fields, each ascending or prefixed with `-` for descending (`+` for ascending). Only fields 4.x sorts by that are
 * columns of the listed items; any other is a 400 naming it and the fields there are.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { listingSorts } from '../../http/pagination.js';
import type { ListingSort } from '../../repositories/listing.js';

/** Per listing: its table, and each sortable field (4.x's name) with its column. */
const SORTABLE: Record<string, { table: ListingSort['table']; fields: Record<string, string> }> = {
  '/organization': {
    table: 'organization',
    fields: same('id', 'name', 'domain', 'address1', 'address2', 'zipcode', 'country'),
  },
  '/collaboration': { table: 'collaboration', fields: same('id', 'name', 'encrypted') },
  '/node': {
    table: 'node',
    fields: same('id', 'name', 'ip', 'status', 'last_seen', 'organization_id', 'collaboration_id'),
  },
  '/user': {
    table: 'user',
    fields: same(
      'id',
      'username',
      'firstname',
      'lastname',
      'email',
      'organization_id',
      'status',
      'last_seen',
    ),
  },
  '/role': { table: 'role', fields: same('id', 'name', 'description', 'organization_id') },
  '/rule': { table: 'rule', fields: same('id', 'name', 'operation', 'scope', 'description') },
  '/task': {
    table: 'task',
    fields: {
      ...same(
        'id',
        'name',
        'description',
        'image',
        'collaboration_id',
        'parent_id',
        'init_user_id',
        'created_at',
      ),
      job_id: 'run_id',
      init_org_id: 'initiator_id',
    },
  },
  '/run': {
    table: 'result',
    fields: same('id', 'task_id', 'organization_id', 'assigned_at', 'started_at', 'finished_at', 'status'),
  },
  '/result': { table: 'result', fields: same('id', 'task_id') },
  '/study': { table: 'study', fields: same('id', 'name', 'collaboration_id') },
};

function same(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, n]));
}

/** Reads `sort` of a listing's request (and takes it out of the query the route validates). */
export function fourSort(request: FastifyRequest, rel: string): void {
  const query = request.query as Record<string, unknown>;
  const raw = query.sort;
  if (raw === undefined) return;
  delete query.sort;
  const sortable = SORTABLE[rel];
  const text = [raw].flat().join(',');
  if (!sortable)
    throw new ApiError('validation_failed', "query parameter 'sort' is only taken by listings", {
      extra: { message: { sort: 'is only taken by listings' } },
    });
  const columns = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const descending = s.startsWith('-');
      const field = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
      const column = Object.hasOwn(sortable.fields, field) ? sortable.fields[field] : undefined;
      if (column === undefined) {
        const fields = Object.keys(sortable.fields).join(', ');
        const why = `cannot sort by '${field}': the fields to sort by are ${fields}`;
        throw new ApiError('validation_failed', `query parameter 'sort' ${why}`, {
          extra: { message: { sort: why } },
        });
      }
      return { column, descending };
    });
  if (columns.length > 0) listingSorts.set(request, { table: sortable.table, columns });
}
