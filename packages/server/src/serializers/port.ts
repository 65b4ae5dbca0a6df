import type { Port } from '@federa/common';
import type { AppContext } from '../context.js';
import { inOrder } from '../http/pagination.js';
import { portRows } from '../repositories/port.js';

export { PortSchema } from '@federa/common';
export type PortOut = Port;

export async function loadPorts(ctx: AppContext, ids: number[]): Promise<PortOut[]> {
  if (ids.length === 0) return [];
  const rows = await portRows(ctx.dbh.db, ids);
  return inOrder(ids, rows).map((p) => ({ id: p.id, port: p.port, label: p.label, result: p.result_id }));
}
