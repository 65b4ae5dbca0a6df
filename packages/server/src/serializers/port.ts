import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { inOrder } from '../http/pagination.js';
import { Nullable } from './common.js';

export const PortSchema = Type.Object(
  { id: Type.Integer(), port: Type.Integer(), label: Nullable(Type.String()), result: Type.Integer() },
  { $id: 'Port' },
);
export type PortOut = Static<typeof PortSchema>;

export async function loadPorts(ctx: AppContext, ids: number[]): Promise<PortOut[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.dbh.db.selectFrom('port').selectAll().where('id', 'in', ids).execute();
  return inOrder(ids, rows).map((p) => ({ id: p.id, port: p.port, label: p.label, result: p.result_id }));
}
