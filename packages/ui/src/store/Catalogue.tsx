/**
 * The store catalogue (`#/store`): the store inside the server (search, status, partitioning; approved algorithms
 * first), then each store linked to the server with its approved algorithms, under its name. A linked store that
 * cannot be reached says so in its own section; the others are listed all the same. With a collaboration chosen,
 * the linked stores are those it uses (`GET /algorithmstore?collaboration_id=`), and "Create a task" starts in it.
 */
import { useState } from 'react';
import type { StoreAlgorithm } from '@federa/client';

import { client } from '../api.js';
import { SelectField, TextField } from '../components/fields.js';
import { ErrorBox, Progress } from '../components/ui.js';
import { useAsync } from '../hooks.js';
import { Link } from '../router.js';
import { StoreStatus } from './StoreStatus.js';
import { knownStores, storeAlgorithms, type StoreRef } from './stores.js';
import './store.css';

const STATUSES = [
  'approved',
  'all',
  'awaiting reviewer assignment',
  'under review',
  'rejected',
  'replaced',
  'removed',
];

/** Approved algorithms first, then by name. */
export function catalogueOrder(list: readonly StoreAlgorithm[]): StoreAlgorithm[] {
  const rank = (a: StoreAlgorithm): number => (a.status === 'approved' ? 0 : 1);
  return [...list].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

export function Catalogue() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('approved');
  const [partitioning, setPartitioning] = useState('');
  const list = useAsync(
    () =>
      client.store.list({
        ...(search.trim() ? { search: search.trim() } : {}),
        status,
        ...(partitioning ? { partitioning: partitioning as 'horizontal' | 'vertical' } : {}),
        perPage: 100,
      }),
    [search, status, partitioning],
  );
  const [collaboration, setCollaboration] = useState('');
  const collabs = useAsync(() => client.collaboration.list(), []);
  const stores = useAsync(() => knownStores(Number(collaboration) || undefined), [collaboration]);
  const linked = (stores.data ?? []).filter((x) => !x.internal);
  const chosen = collabs.data?.find((c) => String(c.id) === collaboration);
  return (
    <section>
      <div className="titlebar">
        <h1>Algorithm store</h1>
        <Link to="/store/reviews">Reviews</Link>
      </div>
      <p>
        Reviewed algorithms: choose one to read what it does, then create a task from one of its functions.
      </p>
      <form className="card form-grid" role="search" onSubmit={(e) => e.preventDefault()}>
        <TextField label="Search" type="search" value={search} onChange={setSearch} />
        <SelectField
          label="Collaboration"
          hint="only the stores it uses"
          value={collaboration}
          onChange={setCollaboration}
          empty="any"
          choices={(collabs.data ?? []).map((c) => ({ value: String(c.id), label: c.name }))}
        />
        <SelectField
          label="Status"
          value={status}
          onChange={setStatus}
          choices={STATUSES.map((s) => ({ value: s, label: s }))}
        />
        <SelectField
          label="Partitioning"
          value={partitioning}
          onChange={setPartitioning}
          empty="any"
          choices={[
            { value: 'horizontal', label: 'horizontal' },
            { value: 'vertical', label: 'vertical' },
          ]}
        />
      </form>
      <ErrorBox error={list.error ?? stores.error ?? collabs.error} />
      {chosen ? (
        <p>
          The stores {chosen.name} uses: this server's own, and those linked to it or to every collaboration.
        </p>
      ) : null}
      {list.loading && !list.data ? <Progress label="Loading algorithms…" /> : null}
      {linked.length > 0 ? <h2>This server's store</h2> : null}
      {list.data?.length === 0 ? <p>No algorithm matches.</p> : null}
      <ul className="catalogue" aria-label="Algorithms">
        {catalogueOrder(list.data ?? []).map((a) => (
          <AlgorithmCard key={a.id} algorithm={a} collaboration={collaboration} />
        ))}
      </ul>
      {linked.map((store) => (
        <LinkedStore
          key={store.id}
          store={store}
          search={search.trim()}
          partitioning={partitioning}
          collaboration={collaboration}
        />
      ))}
    </section>
  );
}

const label = (a: StoreAlgorithm): string => a.display_name || a.name;

/** One algorithm: its page (the store inside the server), what it does, and the task form when it can run. */
function AlgorithmCard({
  algorithm: a,
  store,
  collaboration,
}: {
  algorithm: StoreAlgorithm;
  store?: StoreRef;
  /** The collaboration chosen above, for the task form to start in ('' none). */
  collaboration: string;
}) {
  const runnable = a.status === 'approved' && a.digest && a.functions.some((f) => f.standalone);
  const from = `${store ? `store=${store.id}&` : ''}${collaboration ? `collaboration=${collaboration}&` : ''}`;
  return (
    <li className="card">
      <h3>{store ? label(a) : <Link to={`/store/algorithm/${a.id}`}>{label(a)}</Link>}</h3>
      <p>{a.description}</p>
      <p>
        <StoreStatus value={a.status} /> · {a.partitioning} ·{' '}
        <code className="mono break">
          {a.image}
          {a.digest ? `@${a.digest.slice(0, 19)}…` : ' (no digest)'}
        </code>
      </p>
      {store ? <p>Functions: {a.functions.map((f) => f.display_name || f.name).join(', ')}</p> : null}
      {runnable ? (
        <a
          className="button"
          href={`#/store/new-task?${from}algorithm=${a.id}`}
          aria-label={`Create a task with ${label(a)}${store ? ` from ${store.name}` : ''}`}
        >
          Create a task
        </a>
      ) : null}
    </li>
  );
}

/** A linked store's approved algorithms, or why they cannot be shown now. */
function LinkedStore({
  store,
  search,
  partitioning,
  collaboration,
}: {
  store: StoreRef;
  search: string;
  partitioning: string;
  collaboration: string;
}) {
  const list = useAsync(() => storeAlgorithms(store, search), [store.id, search]);
  const shown = (list.data ?? []).filter((a) => !partitioning || a.partitioning === partitioning);
  const heading = `store-${store.id}`;
  return (
    <section aria-labelledby={heading}>
      <h2 id={heading}>{store.name}</h2>
      <p className="muted break">
        A linked store: its approved algorithms. <code className="mono">{store.url}</code>
      </p>
      {list.loading && !list.data ? <Progress label={`Loading the algorithms of ${store.name}…`} /> : null}
      {list.error ? (
        <p className="notice" role="status">
          {list.error}
        </p>
      ) : null}
      {list.data && shown.length === 0 ? <p>No algorithm of {store.name} matches.</p> : null}
      {shown.length > 0 ? (
        <ul className="catalogue" aria-label={`Algorithms of ${store.name}`}>
          {shown.map((a) => (
            <AlgorithmCard key={a.id} algorithm={a} store={store} collaboration={collaboration} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
