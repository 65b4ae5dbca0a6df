/** A new task's form fields, and the fields copied from a previous task. */
import type { Task } from '@federa/client';

import { client } from '../../api.js';

export interface Draft {
  collaboration: number | null;
  organizations: number[];
  image: string;
  method: string;
  args: string;
  kwargs: string;
  master: boolean;
  database: string;
  name: string;
  description: string;
}

/**
 * What a previous task was run with (its input decrypted for our organization, when we have it). `known`: the
 * task, when the caller read it already.
 */
export async function draftFrom(taskId: number, known?: Task): Promise<Partial<Draft>> {
  const task = known ?? (await client.task.get(taskId));
  const draft: Partial<Draft> = {
    collaboration: task.collaboration?.id,
    image: task.image,
    database: task.database ?? 'default',
    name: task.name,
    description: task.description,
  };
  const results = await client.result.listRaw({ taskId });
  draft.organizations = results.map((r) =>
    typeof r.organization === 'number' ? r.organization : r.organization.id,
  );
  const cryptor = client.cryptor;
  for (const r of results) {
    if (!r.input) continue;
    try {
      const bytes = r.input.includes('$')
        ? cryptor?.encrypted
          ? cryptor.decryptStringToBytes(r.input)
          : null
        : Uint8Array.from(atob(r.input), (c) => c.charCodeAt(0));
      if (!bytes) continue;
      const text = new TextDecoder().decode(bytes);
      if (!text.startsWith('json.')) continue;
      const input = JSON.parse(text.slice(5)) as {
        method?: string;
        args?: unknown;
        kwargs?: unknown;
        master?: boolean;
      };
      draft.method = input.method ?? '';
      draft.args = JSON.stringify(input.args ?? []);
      draft.kwargs = JSON.stringify(input.kwargs ?? {});
      draft.master = input.master === true;
      break;
    } catch {
      /* an input for another organization: try the next */
    }
  }
  return draft;
}
