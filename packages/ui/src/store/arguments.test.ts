import { describe, expect, it } from 'vitest';
import type { StoreArgument } from '@federa/client';

import { collectArguments, initialValue, isAsked, parseArgument } from './arguments.js';

const arg = (type: string, more: Partial<StoreArgument> = {}): StoreArgument => ({
  name: 'x',
  type,
  ...more,
});

describe('the generated task form reads arguments by type', () => {
  it('turns each type into its value', () => {
    expect(parseArgument(arg('string'), ' a ')).toEqual({ value: 'a' });
    expect(parseArgument(arg('column'), 'age')).toEqual({ value: 'age' });
    expect(parseArgument(arg('integer'), '42')).toEqual({ value: 42 });
    expect(parseArgument(arg('float'), '-1.5e2')).toEqual({ value: -150 });
    expect(parseArgument(arg('boolean'), true)).toEqual({ value: true });
    expect(parseArgument(arg('json'), '{"a":[1]}')).toEqual({ value: { a: [1] } });
    expect(parseArgument(arg('string_list'), 'a, b')).toEqual({ value: ['a', 'b'] });
    expect(parseArgument(arg('integer_list'), '1,2')).toEqual({ value: [1, 2] });
    expect(parseArgument(arg('float_list'), '1.5, 2')).toEqual({ value: [1.5, 2] });
    expect(parseArgument(arg('organization'), [3])).toEqual({ value: 3 });
    expect(parseArgument(arg('organization_list'), [3, 4])).toEqual({ value: [3, 4] });
  });

  it('refuses a wrong value with a message naming the argument', () => {
    const age = arg('integer', { name: 'age', display_name: 'Age' });
    expect(parseArgument(age, '4.5')).toEqual({ error: `'Age' must be a whole number, not "4.5".` });
    expect(parseArgument(age, '')).toEqual({ error: `'Age' is required.` });
    expect(parseArgument(arg('float_list'), '1,,2')).toMatchObject({ error: expect.stringContaining("'x'") });
    expect(parseArgument(arg('integer_list'), '1,b')).toMatchObject({
      error: expect.stringContaining('"b"'),
    });
    expect(parseArgument(arg('json'), '{')).toMatchObject({ error: expect.stringContaining('JSON') });
    expect(parseArgument(arg('organization'), [])).toMatchObject({
      error: expect.stringContaining('required'),
    });
    expect(parseArgument(arg('string', { allowed_values: ['mean', 'sum'] }), 'max')).toEqual({
      error: `'x' cannot be "max": choose one of "mean", "sum".`,
    });
  });

  it('leaves out an empty argument that has a default, and starts from the default', () => {
    const withDefault = arg('integer', { has_default_value: true, default_value: '5' });
    expect(initialValue(withDefault)).toBe('5');
    expect(parseArgument(withDefault, '')).toEqual({ omitted: true });
    expect(collectArguments([withDefault, arg('column', { name: 'column' })], { column: 'age' })).toEqual({
      kwargs: { x: 5, column: 'age' },
    });
    expect(collectArguments([arg('column', { name: 'column' })], {})).toEqual({
      errors: { column: `'column' is required.` },
    });
  });

  it('asks a conditional argument only while its condition holds, and never sends a frontend-only one', () => {
    const method = arg('string', { name: 'method', allowed_values: ['mean', 'quantile'] });
    const q = arg('float', {
      name: 'q',
      has_default_value: true,
      default_value: '0.5',
      conditional_on: 'method',
      conditional_operator: '==',
      conditional_value: 'quantile',
    });
    const big = arg('integer', {
      name: 'big',
      has_default_value: true,
      conditional_on: 'n',
      conditional_operator: '>=',
      conditional_value: '10',
    });
    const n = arg('integer', { name: 'n' });
    const args = [method, q, n, big];
    expect(isAsked(q, args, { method: 'mean' })).toBe(false);
    expect(isAsked(q, args, { method: 'quantile' })).toBe(true);
    // Numbers compare as numbers: 9 < 10 although "9" > "10".
    expect(isAsked(big, args, { n: '9' })).toBe(false);
    expect(isAsked(big, args, { n: '10' })).toBe(true);
    expect(isAsked(big, args, { n: 'x' })).toBe(false);
    expect(collectArguments(args, { method: 'mean', n: '3', q: 'not a number' })).toEqual({
      kwargs: { method: 'mean', n: 3 },
    });
    const shown = arg('boolean', { name: 'show_plot', has_default_value: true, is_frontend_only: true });
    expect(collectArguments([n, shown], { n: '1', show_plot: true })).toEqual({ kwargs: { n: 1 } });
  });
});
