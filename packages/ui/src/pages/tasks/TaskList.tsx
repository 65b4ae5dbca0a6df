/** The task list of a collaboration (paginated by the API, filtered, sortable). */
import { useMemo, useState } from 'react';

import { client } from '../../api.js';
import { namedChoices, SelectField, TextField } from '../../components/fields.js';
import { ErrorBox, Pager, Progress, Status, formatTime } from '../../components/ui.js';
import { useAsync } from '../../hooks.js';
import { Link, navigate, type Route } from '../../router.js';
import { withQuery } from './with-query.js';

const PER_PAGE = 25;
const STATUSES = ['pending', 'initializing', 'active', 'completed', 'failed'];
type SortKey = 'id' | 'name' | 'image' | 'status';

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
        <SelectField
          label="Collaboration"
          value={collaboration ?? ''}
          onChange={(v) => go({ collaboration: v || undefined, page: 1 })}
          empty="All"
          choices={namedChoices(collabs.data)}
        />
        <SelectField
          label="Status"
          value={status}
          onChange={(v) => go({ status: v, page: 1 })}
          empty="Any"
          choices={STATUSES.map((s) => ({ value: s, label: s }))}
        />
        <TextField label="Name contains" value={nameInput} onChange={setNameInput} />
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={tasks.error} />
      {tasks.loading && !tasks.data ? <Progress label="Loading tasks…" /> : null}
      {tasks.data ? (
        <>
          <div className="table-box" tabIndex={0}>
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
          </div>
          <Pager page={page} perPage={PER_PAGE} total={tasks.data.total} onPage={(p) => go({ page: p })} />
        </>
      ) : null}
    </section>
  );
}
