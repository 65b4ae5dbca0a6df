/**
 * One field of the generated task form, chosen by the argument's type (docs/store.md#researchers): a number box
 * for numbers, a checkbox for a boolean, a list of choices when the author fixed the allowed values, the
 * collaboration's organizations for an organization, a text area for JSON, and text otherwise.
 */
import { useId } from 'react';
import type { StoreArgument } from '@federa/client';

import type { FieldValue } from './arguments.js';

/** What a researcher is asked to type, by argument type. */
export const TYPE_HINT: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  float: 'a number',
  boolean: 'yes or no',
  column: 'a column name',
  column_list: 'column names, separated by commas',
  string_list: 'texts, separated by commas',
  integer_list: 'whole numbers, separated by commas',
  float_list: 'numbers, separated by commas',
  organization: 'one organization',
  organization_list: 'organizations',
  json: 'JSON, e.g. {"key": 1} or [1, 2]',
};

export interface ArgumentFieldProps {
  argument: StoreArgument;
  value: FieldValue;
  onChange: (value: FieldValue) => void;
  error?: string | undefined;
  /** The organizations of the chosen collaboration, for the organization types. */
  organizations: readonly { id: number; name: string }[];
  /** Column names the nodes shared (names only), offered for the column types. */
  columns?: readonly string[];
}

export function ArgumentField({
  argument: a,
  value,
  onChange,
  error,
  organizations,
  columns = [],
}: ArgumentFieldProps) {
  const id = useId();
  const label = a.display_name || a.name;
  const required = !a.has_default_value;
  const shared = (a.type === 'column' || a.type === 'column_list') && columns.length > 0;
  const describedBy = [
    a.description ? `${id}-d` : '',
    shared ? `${id}-c` : '',
    `${id}-t`,
    error ? `${id}-e` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const text = typeof value === 'string' ? value : '';
  const invalid = error ? true : undefined;
  const common = {
    id,
    'aria-describedby': describedBy,
    'aria-invalid': invalid,
    'aria-required': required || undefined,
  };
  const notes = (
    <>
      {a.description ? <small id={`${id}-d`}>{a.description}</small> : null}
      <small id={`${id}-t`} className="type">
        {TYPE_HINT[a.type] ?? a.type}
        {required
          ? ', required'
          : a.default_value !== undefined
            ? `, default ${a.default_value}`
            : ', optional'}
        {a.name !== label ? ` · ${a.name}` : ''}
      </small>
      {error ? (
        <small id={`${id}-e`} className="field-error">
          {error}
        </small>
      ) : null}
    </>
  );

  if (a.type === 'organization' || a.type === 'organization_list') {
    const picked = Array.isArray(value) ? value : [];
    const one = a.type === 'organization';
    return (
      <fieldset className="field wide" aria-describedby={describedBy} aria-invalid={invalid}>
        <legend>{label}</legend>
        {organizations.length === 0 ? <p>Choose a collaboration first.</p> : null}
        {organizations.map((o) => (
          <label key={o.id} className="check">
            <input
              type={one ? 'radio' : 'checkbox'}
              name={id}
              checked={picked.includes(o.id)}
              onChange={(e) =>
                onChange(
                  one ? [o.id] : e.target.checked ? [...picked, o.id] : picked.filter((x) => x !== o.id),
                )
              }
            />
            {o.name}
          </label>
        ))}
        {notes}
      </fieldset>
    );
  }

  if (a.type === 'boolean')
    return (
      <div className="field">
        <label className="check">
          <input
            type="checkbox"
            {...common}
            checked={value === true}
            onChange={(e) => onChange(e.target.checked)}
          />
          {label}
        </label>
        {notes}
      </div>
    );

  const list = a.type.endsWith('_list');
  const allowed = a.allowed_values ?? [];
  // A column field suggests the names the nodes shared; any name may still be typed (a node may share none).
  const suggestions = allowed.length > 0 ? allowed : shared && !list ? columns : [];
  if (allowed.length > 0 && !list)
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">{required ? 'Choose…' : 'default'}</option>
          {allowed.map((v) => (
            <option key={String(v)} value={String(v)}>
              {String(v)}
            </option>
          ))}
        </select>
        {notes}
      </div>
    );

  if (a.type === 'json')
    return (
      <div className="field wide">
        <label htmlFor={id}>{label}</label>
        <textarea {...common} className="mono" value={text} onChange={(e) => onChange(e.target.value)} />
        {notes}
      </div>
    );

  const numeric = a.type === 'integer' || a.type === 'float';
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        {...common}
        // Text with a numeric keyboard, not type=number: the browser would silently drop what is not a number,
        // and the researcher should see which argument is wrong and why.
        type="text"
        inputMode={numeric ? (a.type === 'integer' ? 'numeric' : 'decimal') : undefined}
        list={suggestions.length > 0 ? `${id}-l` : undefined}
        value={text}
        onChange={(e) => onChange(e.target.value)}
      />
      {suggestions.length > 0 ? (
        <datalist id={`${id}-l`}>
          {suggestions.map((v) => (
            <option key={String(v)} value={String(v)} />
          ))}
        </datalist>
      ) : null}
      {shared ? <small id={`${id}-c`}>Columns the nodes shared: {columns.join(', ')}</small> : null}
      {notes}
    </div>
  );
}
