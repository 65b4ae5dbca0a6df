// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StoreArgument } from '@federa/client';

import { ArgumentField } from './ArgumentField.js';
import { initialValue, type FieldValue } from './arguments.js';

afterEach(cleanup);

const ORGS = [
  { id: 3, name: 'Hospital A' },
  { id: 4, name: 'Hospital B' },
];

function field(argument: StoreArgument, value?: FieldValue, error?: string, columns?: string[]) {
  const onChange = vi.fn();
  render(
    <ArgumentField
      argument={argument}
      value={value ?? initialValue(argument)}
      onChange={onChange}
      error={error}
      organizations={ORGS}
      columns={columns}
    />,
  );
  return onChange;
}

describe('one field of the generated task form per argument type', () => {
  it('a text box for text, columns, numbers and lists, saying the type expected', () => {
    for (const [type, hint] of [
      ['string', 'text, required'],
      ['column', 'a column name, required'],
      ['integer', 'a whole number, required'],
      ['float', 'a number, required'],
      ['column_list', 'column names, separated by commas, required'],
      ['integer_list', 'whole numbers, separated by commas, required'],
    ] as const) {
      field({ name: 'x', display_name: 'The X', type });
      const input = screen.getByLabelText('The X') as HTMLInputElement;
      expect(input.tagName).toBe('INPUT');
      expect(input.type).toBe('text');
      expect(screen.getByText(`${hint} · x`)).toBeTruthy();
      cleanup();
    }
    field({ name: 'n', type: 'integer' });
    expect((screen.getByLabelText('n') as HTMLInputElement).inputMode).toBe('numeric');
  });

  it('a checkbox for a boolean, a text area for JSON, a choice for allowed values', () => {
    const onBool = field({ name: 'flag', type: 'boolean', has_default_value: true, default_value: 'true' });
    const box = screen.getByRole('checkbox', { name: 'flag' }) as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    expect(onBool).toHaveBeenCalledWith(false);
    cleanup();
    field({ name: 'options', type: 'json', has_default_value: true });
    expect(screen.getByLabelText('options').tagName).toBe('TEXTAREA');
    expect(screen.getByText('JSON, e.g. {"key": 1} or [1, 2], optional')).toBeTruthy();
    cleanup();
    const onPick = field({ name: 'stat', type: 'string', allowed_values: ['mean', 'median'] });
    const select = screen.getByLabelText('stat') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(['Choose…', 'mean', 'median']);
    fireEvent.change(select, { target: { value: 'median' } });
    expect(onPick).toHaveBeenCalledWith('median');
  });

  it("the collaboration's organizations: one to choose, or several to tick", () => {
    const onOne = field({ name: 'site', type: 'organization' });
    expect(screen.getAllByRole('radio')).toHaveLength(2);
    fireEvent.click(screen.getByRole('radio', { name: 'Hospital B' }));
    expect(onOne).toHaveBeenCalledWith([4]);
    cleanup();
    const onMany = field({ name: 'sites', type: 'organization_list' }, [3]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Hospital B' }));
    expect(onMany).toHaveBeenCalledWith([3, 4]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Hospital A' }));
    expect(onMany).toHaveBeenLastCalledWith([]);
  });

  it('a wrong value is marked at its field, with the message tied to it', () => {
    field({ name: 'age', type: 'integer' }, '4.5', `'age' must be a whole number, not "4.5".`);
    const input = screen.getByLabelText('age');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const described = (input.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent);
    expect(described).toContain(`'age' must be a whole number, not "4.5".`);
  });

  it('a column field suggests the names the nodes shared, and still takes any name', () => {
    field({ name: 'col', type: 'column' }, '', undefined, ['age', 'bmi']);
    const input = screen.getByLabelText('col') as HTMLInputElement;
    expect(input.tagName).toBe('INPUT');
    const list = document.getElementById(input.getAttribute('list') ?? '');
    expect([...(list?.querySelectorAll('option') ?? [])].map((o) => o.getAttribute('value'))).toEqual([
      'age',
      'bmi',
    ]);
    expect(input.getAttribute('aria-describedby')).toContain(
      screen.getByText('Columns the nodes shared: age, bmi').id,
    );
    cleanup();
    field({ name: 'cols', type: 'column_list' }, '', undefined, ['age']);
    expect(screen.getByText('Columns the nodes shared: age')).toBeTruthy();
    expect(screen.getByLabelText('cols').getAttribute('list')).toBeNull();
  });
});
