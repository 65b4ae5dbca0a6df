/** The task list of a collaboration (paginated by the API, filtered, sortable) and the new-task form. */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Collaboration, Organization, Task } from '@federa/client';

import { client, keyState } from '../api.js';
import { KeyLoader } from '../components/KeyLoader.js';
import { ErrorBox, Field, Pager, Progress, Status, formatTime } from '../components/ui.js';
import { useAction, useAsync } from '../hooks.js';
import { Link, navigate, type Route } from '../router.js';

const PER_PAGE = 25;
type SortKey = 'id' | 'name' | 'image' | 'status';

function withQuery(base: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `${base}?${text}` : base;
}

export function TaskList({ route }: { route: Route }) {
  const q = route.query;
  const collaboration = Number(q.get('collaboration')) || undefined;
  const page = Number(q.get('page')) || 1;
  const status = q.get('status') ?? '';
  const name = q.get('name') ?? '';
  const [sort, setSort] = useState<{ key: SortKey; up: boolean }>({ key: 'id', up: false });
  const [nameInput, setNameInput] = useState(name);
  const collabs = useAsync(() => client.collaboration.list(), []);
  const tasks = useAsync(
    () =>
      client.task.listPage(
        {
          collaborationId: collaboration,
          status: status || undefined,
          name: name ? `%${name}%` : undefined,
        },
        { page, perPage: PER_PAGE },
      ),
    [collaboration, page, status, name],
  );
  const go = (changes: Record<string, string | number | undefined>): void =>
    navigate(withQuery('/tasks', { collaboration, status, name, page, ...changes }));
  const sorted = useMemo(() => {
    const items = [...(tasks.data?.items ?? [])];
    const key = sort.key;
    items.sort((a, b) => {
      const x = key === 'id' ? a.id : String(a[key] ?? '');
      const y = key === 'id' ? b.id : String(b[key] ?? '');
      return (x < y ? -1 : x > y ? 1 : 0) * (sort.up ? 1 : -1);
    });
    return items;
  }, [tasks.data, sort]);
  const header = (key: SortKey, label: string) => (
    <th aria-sort={sort.key === key ? (sort.up ? 'ascending' : 'descending') : 'none'}>
      <button
        type="button"
        className="sort"
        onClick={() => setSort({ key, up: sort.key === key ? !sort.up : true })}
      >
        {label} {sort.key === key ? (sort.up ? '▲' : '▼') : ''}
      </button>
    </th>
  );
  return (
    <section>
      <div className="titlebar">
        <h1>Tasks</h1>
        <Link to={withQuery('/new-task', { collaboration })} className="button primary">
          New task
        </Link>
      </div>
      <form
        className="filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ name: nameInput, page: 1 });
        }}
      >
        <Field label="Collaboration">
          {(id) => (
            <select
              id={id}
              value={collaboration ?? ''}
              onChange={(e) => go({ collaboration: e.target.value || undefined, page: 1 })}
            >
              <option value="">All</option>
              {(collabs.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Status">
          {(id) => (
            <select id={id} value={status} onChange={(e) => go({ status: e.target.value, page: 1 })}>
              <option value="">Any</option>
              {['pending', 'initializing', 'active', 'completed', 'failed'].map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Name contains">
          {(id) => <input id={id} value={nameInput} onChange={(e) => setNameInput(e.target.value)} />}
        </Field>
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={tasks.error} />
      {tasks.loading && !tasks.data ? <Progress label="Loading tasks…" /> : null}
      {tasks.data ? (
        <>
          <table className="table">
            <caption className="visually-hidden">Tasks, sortable by column (this page)</caption>
            <thead>
              <tr>
                {header('id', 'Id')}
                {header('name', 'Name')}
                {header('image', 'Image')}
                {header('status', 'Status')}
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {sorted.map((t) => (
                <tr key={t.id}>
                  <td>
                    <Link to={`/task/${t.id}`}>#{t.id}</Link>
                  </td>
                  <td>
                    <Link to={`/task/${t.id}`}>{t.name || '(no name)'}</Link>
                    {t.parent ? <small> sub-task of #{t.parent.id}</small> : null}
                  </td>
                  <td className="mono">{t.image}</td>
                  <td>
                    <Status value={t.status ?? (t.complete ? 'completed' : 'pending')} />
                  </td>
                  <td>{formatTime(t.created_at)}</td>
                </tr>
              ))}
              {sorted.length === 0 ? (
                <tr>
                  <td colSpan={5}>No tasks match.</td>
                </tr>
              ) : null}
            </tbody>
          </table>
          <Pager page={page} perPage={PER_PAGE} total={tasks.data.total} onPage={(p) => go({ page: p })} />
        </>
      ) : null}
    </section>
  );
}

interface Draft {
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

/** What a previous task was run with (its input decrypted for our organization, when we have it). */
async function draftFrom(taskId: number): Promise<Partial<Draft>> {
  const task = await client.task.get(taskId);
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

export function NewTask({ route }: { route: Route }) {
  const from = Number(route.query.get('from')) || null;
  const [d, setD] = useState<Draft>({
    collaboration: Number(route.query.get('collaboration')) || null,
    organizations: [],
    image: '',
    method: '',
    args: '[]',
    kwargs: '{}',
    master: false,
    database: 'default',
    name: '',
    description: '',
  });
  const [keyName, setKeyName] = useState(keyState.fileName);
  const [prefill, setPrefill] = useState<string | null>(null);
  const collabs = useAsync(() => client.collaboration.list(), []);
  const collab: Collaboration | undefined = collabs.data?.find((c) => c.id === d.collaboration);
  const orgs = useAsync<Organization[]>(
    () => (d.collaboration ? client.collaboration.organizations(d.collaboration) : Promise.resolve([])),
    [d.collaboration],
  );
  useEffect(() => {
    if (!from) return;
    draftFrom(from).then(
      (draft) => {
        setD((old) => ({ ...old, ...draft }));
        setPrefill(
          draft.method
            ? `Copied from task #${from}; change what you need.`
            : `Copied from task #${from}; its input could not be read here (load the key of an organization it ran at to copy the arguments).`,
        );
      },
      () => setPrefill(`Task #${from} could not be read.`),
    );
  }, [from, keyName]);
  const action = useAction();
  const [formError, setFormError] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]): void =>
    setD((old) => ({ ...old, [key]: value }));
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setFormError(null);
    let args: unknown;
    let kwargs: unknown;
    try {
      args = JSON.parse(d.args || '[]');
      if (!Array.isArray(args)) throw new Error();
    } catch {
      setFormError('Arguments must be a JSON array, e.g. ["age"].');
      return;
    }
    try {
      kwargs = JSON.parse(d.kwargs || '{}');
      if (kwargs === null || typeof kwargs !== 'object' || Array.isArray(kwargs)) throw new Error();
    } catch {
      setFormError('Keyword arguments must be a JSON object, e.g. {"column": "age"}.');
      return;
    }
    if (!d.collaboration) return setFormError('Choose a collaboration.');
    if (d.organizations.length === 0) return setFormError('Choose at least one organization.');
    const created = await action.run(() =>
      client.task.create({
        collaborationId: d.collaboration!,
        organizations: d.organizations,
        name: d.name,
        description: d.description,
        image: d.image.trim(),
        database: d.database || 'default',
        input: {
          method: d.method,
          args,
          kwargs,
          ...(d.master ? { master: true } : {}),
          output_format: 'json',
        },
      }),
    );
    if (created) navigate(`/task/${created.id}`);
  };
  return (
    <section>
      <h1>New task</h1>
      {prefill ? <p className="notice">{prefill}</p> : null}
      <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New task">
        <Field label="Collaboration">
          {(id) => (
            <select
              id={id}
              required
              value={d.collaboration ?? ''}
              onChange={(e) =>
                setD((old) => ({ ...old, collaboration: Number(e.target.value) || null, organizations: [] }))
              }
            >
              <option value="">Choose…</option>
              {(collabs.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                  {c.encrypted ? ' (encrypted)' : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
        {collab?.encrypted ? (
          <div className="field wide">
            <span className="label">Encryption</span>
            <p>
              This collaboration is encrypted: the input is encrypted in this browser for each organization,
              and results are encrypted for yours. Load your organization's private key file.
            </p>
            <KeyLoader onLoaded={() => setKeyName(keyState.fileName)} />
          </div>
        ) : null}
        <fieldset className="field wide">
          <legend>Organizations that run it</legend>
          {orgs.loading && d.collaboration ? <Progress label="Loading organizations…" /> : null}
          {(orgs.data ?? []).map((o) => (
            <label key={o.id} className="check">
              <input
                type="checkbox"
                checked={d.organizations.includes(o.id)}
                onChange={(e) =>
                  set(
                    'organizations',
                    e.target.checked ? [...d.organizations, o.id] : d.organizations.filter((x) => x !== o.id),
                  )
                }
              />
              {o.name}
              {collab?.encrypted && !o.public_key ? (
                <small className="warn"> (no public key yet: its node has not started)</small>
              ) : null}
            </label>
          ))}
          {d.collaboration && orgs.data?.length === 0 ? (
            <p>This collaboration has no organizations.</p>
          ) : null}
        </fieldset>
        <Field label="Image" hint="The algorithm's Docker image, e.g. federa/average-python:local">
          {(id) => (
            <input
              id={id}
              required
              className="mono"
              value={d.image}
              onChange={(e) => set('image', e.target.value)}
            />
          )}
        </Field>
        <Field label="Method">
          {(id) => (
            <input id={id} required value={d.method} onChange={(e) => set('method', e.target.value)} />
          )}
        </Field>
        <Field label="Arguments (JSON array)">
          {(id) => (
            <input id={id} className="mono" value={d.args} onChange={(e) => set('args', e.target.value)} />
          )}
        </Field>
        <Field label="Keyword arguments (JSON object)">
          {(id) => (
            <input
              id={id}
              className="mono"
              value={d.kwargs}
              onChange={(e) => set('kwargs', e.target.value)}
            />
          )}
        </Field>
        <label className="check">
          <input type="checkbox" checked={d.master} onChange={(e) => set('master', e.target.checked)} />{' '}
          Master (central) method: it creates sub-tasks itself
        </label>
        <Field label="Database label">
          {(id) => <input id={id} value={d.database} onChange={(e) => set('database', e.target.value)} />}
        </Field>
        <Field label="Name">
          {(id) => <input id={id} value={d.name} onChange={(e) => set('name', e.target.value)} />}
        </Field>
        <Field label="Description">
          {(id) => (
            <input id={id} value={d.description} onChange={(e) => set('description', e.target.value)} />
          )}
        </Field>
        <ErrorBox error={formError ?? action.error} />
        <div className="wide">
          <button type="submit" className="primary" disabled={action.busy}>
            {action.busy ? (collab?.encrypted ? 'Encrypting and sending…' : 'Sending…') : 'Create task'}
          </button>
        </div>
      </form>
    </section>
  );
}

export type { Task };
