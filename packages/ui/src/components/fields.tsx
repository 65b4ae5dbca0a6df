/** Form fields the pages share: a labelled text input and a labelled select. */
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';

import { Field } from './ui.js';

type InputRest = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>;

/** A labelled `<input>` whose value is a string. */
export function TextField({
  label,
  hint,
  value,
  onChange,
  ...rest
}: InputRest & { label: string; hint?: string; value: string; onChange: (value: string) => void }) {
  return (
    <Field label={label} hint={hint}>
      {(id) => <input id={id} value={value} onChange={(e) => onChange(e.target.value)} {...rest} />}
    </Field>
  );
}

export interface Choice {
  value: string | number;
  label: ReactNode;
}

type SelectRest = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'value' | 'onChange'>;

/** A labelled `<select>`: an empty first choice (`empty`), then `choices`. */
export function SelectField({
  label,
  hint,
  value,
  onChange,
  empty,
  choices,
  ...rest
}: SelectRest & {
  label: string;
  hint?: string;
  value: string | number;
  onChange: (value: string) => void;
  empty?: string;
  choices: readonly Choice[];
}) {
  return (
    <Field label={label} hint={hint}>
      {(id) => (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)} {...rest}>
          {empty !== undefined ? <option value="">{empty}</option> : null}
          {choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** Choices from a listing of things with an id and a name. */
export function namedChoices(items: readonly { id: number; name: string | null }[] | undefined): Choice[] {
  return (items ?? []).map((x) => ({ value: x.id, label: x.name }));
}
