/** A small form that changes some text fields of a thing, with Save and Cancel; used by the admin pages. */
import { useState, type FormEvent } from 'react';

import { TextField } from './fields.js';

export interface EditField {
  key: string;
  label: string;
  value: string;
  required?: boolean;
  type?: string;
}

export function EditForm(props: {
  title: string;
  fields: readonly EditField[];
  busy: boolean;
  onSave: (values: Record<string, string>) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(props.fields.map((f) => [f.key, f.value])),
  );
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    props.onSave(values);
  };
  return (
    <form className="card form-grid" onSubmit={submit} aria-label={props.title}>
      <h2 className="wide">{props.title}</h2>
      {props.fields.map((f) => (
        <TextField
          key={f.key}
          label={f.label}
          type={f.type}
          required={f.required}
          value={values[f.key] ?? ''}
          onChange={(v) => setValues((old) => ({ ...old, [f.key]: v }))}
        />
      ))}
      <div className="wide actions">
        <button type="submit" className="primary" disabled={props.busy}>
          Save
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
