/**
 * The task form generated from a store function (`#/store/new-task?algorithm=…&function=…`): one field per
 * argument by its type, the databases the function reads, the organizations that run it. Each argument is checked
 * in the page first (the message names the argument and the type expected); the server checks them again. The
 * task runs the approved image at its digest, and a central function is started as a master task.
 */
import { useMemo, useState, type FormEvent } from 'react';
import type { Collaboration, Organization, StoreAlgorithm, StoreFunction } from '@federa/client';

import { client, keyState } from '../api.js';
import { SelectField, TextField } from '../components/fields.js';
import { KeyLoader } from '../components/KeyLoader.js';
import { ErrorBox, Progress } from '../components/ui.js';
import { useAction, useAsync, type AsyncState } from '../hooks.js';
import { Link, navigate, type Route } from '../router.js';
import { ArgumentField } from './ArgumentField.js';
import { collectArguments, initialValue, isAsked, type FieldValue } from './arguments.js';
import { StoreStatus } from './StoreStatus.js';
import { storeAlgorithm, type StoreRef } from './stores.js';
import './store.css';

const fnLabel = (f: StoreFunction): string => f.display_name || f.name;

/** Why the chosen algorithm cannot run, or null when it can. */
export function notRunnable(a: StoreAlgorithm): string | null {
  if (a.status !== 'approved')
    return `${a.display_name || a.name} is ${a.status}: only an approved algorithm can run.`;
  if (!a.digest) return `${a.display_name || a.name} has no pinned image digest: it cannot run.`;
  return null;
}

export function TaskForm({ route }: { route: Route }) {
  const algorithmId = Number(route.query.get('algorithm')) || null;
  // A linked store's algorithm (`store=<id>` of GET /algorithmstore); left out, the store inside the server.
  const storeId = Number(route.query.get('store')) || null;
  const algorithm = useAsync<StoreAlgorithm | null>(
    () => (algorithmId ? storeAlgorithm(storeId, algorithmId) : Promise.resolve(null)),
    [algorithmId, storeId],
  );
  const store = useAsync<StoreRef | null>(
    () => (storeId ? client.request<StoreRef>('GET', `/algorithmstore/${storeId}`) : Promise.resolve(null)),
    [storeId],
  );
  // Read beside the algorithm, not after it: the form is ready one round trip sooner.
  const collabs = useAsync(() => client.collaboration.list(), []);
  if (!algorithmId)
    return (
      <section>
        <h1>New task from the store</h1>
        <p>
          Choose an algorithm in the <Link to="/store">store</Link>, then one of its functions.
        </p>
      </section>
    );
  if (algorithm.error || store.error)
    return (
      <section>
        <h1>New task from the store</h1>
        <ErrorBox error={algorithm.error ?? store.error} />
      </section>
    );
  if (!algorithm.data || store.data === undefined) return <Progress label="Loading the algorithm…" />;
  return <Form algorithm={algorithm.data} store={store.data} route={route} collabs={collabs} />;
}

function Form({
  algorithm: a,
  store,
  route,
  collabs,
}: {
  algorithm: StoreAlgorithm;
  /** The linked store the algorithm is from; null: the store inside the server. */
  store: StoreRef | null;
  route: Route;
  collabs: AsyncState<Collaboration[]>;
}) {
  const startable = a.functions.filter((f) => f.standalone);
  const asked = route.query.get('function');
  const [fnName, setFnName] = useState(
    startable.some((f) => f.name === asked) ? asked! : (startable[0]?.name ?? ''),
  );
  const fn = a.functions.find((f) => f.name === fnName);
  const [collaboration, setCollaboration] = useState<number | null>(
    Number(route.query.get('collaboration')) || null,
  );
  const [organizations, setOrganizations] = useState<number[]>([]);
  const [fields, setFields] = useState<Record<string, FieldValue>>({});
  const [labels, setLabels] = useState<Record<string, string>>({});
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [, setKeyName] = useState(keyState.fileName);
  const action = useAction();
  const collab: Collaboration | undefined = collabs.data?.find((c) => c.id === collaboration);
  const orgs = useAsync<Organization[]>(
    () => (collaboration ? client.collaboration.organizations(collaboration) : Promise.resolve([])),
    [collaboration],
  );
  // The column names the nodes shared for the function's first database, offered in the column fields.
  const firstLabel = fn?.databases[0] ? labels[fn.databases[0].name]?.trim() || 'default' : 'default';
  const columns = useAsync(
    () =>
      collaboration
        ? client.collaboration.columns(collaboration, firstLabel).catch(() => null)
        : Promise.resolve(null),
    [collaboration, firstLabel],
  );
  const columnNames = useMemo(() => (columns.data?.data ?? []).map((c) => c.name), [columns.data]);
  const orgChoices = useMemo(
    () => (orgs.data ?? []).map((o) => ({ id: o.id, name: o.name ?? `organization ${o.id}` })),
    [orgs.data],
  );
  const central = fn?.type === 'central';
  // Shown while any argument is wrong; it goes as the fields are put right.
  const wrong = Object.values(errors);
  const summary =
    wrong.length > 0
      ? `Check ${wrong.length === 1 ? 'this argument' : 'these arguments'}: ${wrong.join(' ')}`
      : null;
  const blocked = notRunnable(a);

  const chooseFunction = (name: string): void => {
    setFnName(name);
    setFields({});
    setErrors({});
  };
  const setField = (arg: string, value: FieldValue): void => {
    setFields((old) => ({ ...old, [arg]: value }));
    // A corrected field loses its message at once; the others keep theirs until the next try.
    setErrors((old) => {
      if (!(arg in old)) return old;
      const rest = { ...old };
      delete rest[arg];
      return rest;
    });
  };

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setFormError(null);
    if (!fn) return setFormError('Choose a function.');
    const collected = collectArguments(fn.arguments, fields);
    setErrors('errors' in collected ? collected.errors : {});
    if (!collaboration) return setFormError('Choose a collaboration.');
    if (organizations.length === 0)
      return setFormError(
        central ? 'Choose the organization that runs the central part.' : 'Choose at least one organization.',
      );
    if ('errors' in collected) {
      // The first wrong field takes the focus, so a keyboard user lands where the fix goes.
      requestAnimationFrame(() =>
        document
          .querySelector<HTMLElement>(
            'form :is(input, select, textarea)[aria-invalid="true"], form fieldset[aria-invalid="true"] input',
          )
          ?.focus(),
      );
      return;
    }
    const databases = fn.databases.map((d) => ({ label: labels[d.name]?.trim() || 'default' }));
    const created = await action.run(() =>
      client.task.create({
        collaborationId: collaboration,
        organizations,
        name: name.trim() || fnLabel(fn),
        description,
        image: `${a.image}@${a.digest}`,
        input: {
          method: fn.name,
          args: [],
          kwargs: collected.kwargs,
          ...(central ? { master: true } : {}),
          output_format: 'json',
        },
        ...(databases.length > 0 ? { databases } : {}),
        storeAlgorithmId: a.id,
        ...(store ? { algorithmStoreId: store.id } : {}),
      }),
    );
    if (created) navigate(`/task/${created.id}`);
  };

  return (
    <section>
      <h1>New task: {a.display_name || a.name}</h1>
      <p>
        <StoreStatus value={a.status} /> ·{' '}
        {store ? (
          `from the store ${store.name}`
        ) : (
          <Link to={`/store/algorithm/${a.id}`}>about this algorithm</Link>
        )}{' '}
        ·{' '}
        <code className="mono break">
          {a.image}
          {a.digest ? `@${a.digest}` : ''}
        </code>
      </p>
      {blocked ? <ErrorBox error={blocked} /> : null}
      <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New task" noValidate>
        <SelectField
          label="Function"
          value={fnName}
          onChange={chooseFunction}
          choices={startable.map((f) => ({ value: f.name, label: `${fnLabel(f)} (${f.type})` }))}
        />
        <SelectField
          label="Collaboration"
          value={collaboration ?? ''}
          empty="Choose…"
          onChange={(v) => {
            setCollaboration(Number(v) || null);
            setOrganizations([]);
          }}
          // A store linked to one collaboration serves that collaboration only.
          choices={(collabs.data ?? [])
            .filter((c) => store?.collaboration_id == null || c.id === store.collaboration_id)
            .map((c) => ({
              value: c.id,
              label: `${c.name}${c.encrypted ? ' (encrypted)' : ''}`,
            }))}
        />
        {fn?.description ? <p className="wide">{fn.description}</p> : null}
        {collab?.encrypted ? (
          <div className="field wide">
            <span className="label">Encryption</span>
            <p>
              This collaboration is encrypted: the input is encrypted in this browser for each organization.
              Load your organization's private key file.
            </p>
            <KeyLoader onLoaded={() => setKeyName(keyState.fileName)} />
          </div>
        ) : null}
        <fieldset className="field wide">
          <legend>{central ? 'Organization that runs the central part' : 'Organizations that run it'}</legend>
          {!collaboration ? <p>Choose a collaboration first.</p> : null}
          {orgs.loading && collaboration ? <Progress label="Loading organizations…" /> : null}
          {(orgs.data ?? []).map((o) => (
            <label key={o.id} className="check">
              <input
                type={central ? 'radio' : 'checkbox'}
                name="run-at"
                checked={organizations.includes(o.id)}
                onChange={(e) =>
                  setOrganizations(
                    central
                      ? [o.id]
                      : e.target.checked
                        ? [...organizations, o.id]
                        : organizations.filter((x) => x !== o.id),
                  )
                }
              />
              {o.name}
            </label>
          ))}
          {central ? (
            <small>It starts the federated part at the organizations it needs, as a master task.</small>
          ) : null}
        </fieldset>
        {fn && fn.arguments.length > 0 ? (
          <fieldset className="field wide store-args">
            <legend>Arguments</legend>
            <div className="form-grid">
              {fn.arguments
                .filter((arg) => isAsked(arg, fn.arguments, fields))
                .map((arg) => (
                  <ArgumentField
                    key={`${fn.name}.${arg.name}`}
                    argument={arg}
                    value={fields[arg.name] ?? initialValue(arg)}
                    onChange={(v) => setField(arg.name, v)}
                    error={errors[arg.name]}
                    organizations={orgChoices}
                    columns={columnNames}
                  />
                ))}
            </div>
          </fieldset>
        ) : null}
        {fn && fn.databases.length > 0 ? (
          <fieldset className="field wide">
            <legend>Databases</legend>
            <div className="form-grid">
              {fn.databases.map((d) => (
                <TextField
                  key={d.name}
                  label={`${d.name}: node database label`}
                  hint={d.description ? `${d.description}. Empty: default` : 'Empty: default'}
                  value={labels[d.name] ?? ''}
                  placeholder="default"
                  onChange={(v) => setLabels((old) => ({ ...old, [d.name]: v }))}
                />
              ))}
            </div>
          </fieldset>
        ) : null}
        <TextField label="Name" value={name} placeholder={fn ? fnLabel(fn) : ''} onChange={setName} />
        <TextField label="Description" value={description} onChange={setDescription} />
        <div className="wide">
          <ErrorBox error={formError ?? summary ?? action.error ?? collabs.error} />
        </div>
        <div className="wide">
          <button type="submit" className="primary" disabled={action.busy || blocked !== null || !fn}>
            {action.busy ? (collab?.encrypted ? 'Encrypting and sending…' : 'Sending…') : 'Create task'}
          </button>
        </div>
      </form>
    </section>
  );
}
