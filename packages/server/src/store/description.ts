/**
 * An algorithm's description as its author writes it for a store (the JSON vantage6's store takes, loaded as it
 * is): checked field by field, every refusal naming the field (`functions[0].arguments[2].type`).
 */

import { parseOutputDeclaration, type OutputDeclaration } from '@federa/common';

import { DescriptionError } from './description-error.js';
import { parseImage } from './image-reference.js';

export { DescriptionError } from './description-error.js';
export { parseImage } from './image-reference.js';

export const PARTITIONINGS = ['horizontal', 'vertical'] as const;
export const FUNCTION_TYPES = ['central', 'federated'] as const;
export const ARGUMENT_TYPES = [
  'column',
  'column_list',
  'string',
  'string_list',
  'integer',
  'integer_list',
  'float',
  'float_list',
  'boolean',
  'json',
  'organization',
  'organization_list',
] as const;
export const VISUALIZATION_TYPES = ['table', 'line', 'histogram'] as const;
export const CONDITIONAL_OPERATORS = ['==', '!=', '>', '<', '>=', '<='] as const;

export type ArgumentType = (typeof ARGUMENT_TYPES)[number];
export type AllowedValue = string | number;

export interface ArgumentDescription {
  name: string;
  display_name?: string;
  description?: string;
  type: ArgumentType;
  allowed_values?: AllowedValue[];
  has_default_value?: boolean;
  default_value?: string;
  conditional_on?: string;
  conditional_operator?: string;
  conditional_value?: string;
  is_frontend_only?: boolean;
}

export interface DatabaseDescription {
  name: string;
  description?: string;
}

export interface VisualizationDescription {
  name: string;
  description?: string;
  type: (typeof VISUALIZATION_TYPES)[number];
  schema?: Record<string, unknown>;
}

export interface FunctionDescription {
  name: string;
  display_name?: string;
  description?: string;
  type: (typeof FUNCTION_TYPES)[number];
  standalone?: boolean;
  databases?: DatabaseDescription[];
  arguments?: ArgumentDescription[];
  ui_visualizations?: VisualizationDescription[];
  /** What its result holds, for the nodes' disclosure checks (docs/output-control.md#declared-outputs). */
  output?: OutputDeclaration;
}

export interface AlgorithmDescription {
  name: string;
  display_name?: string;
  description?: string;
  image: string;
  partitioning: (typeof PARTITIONINGS)[number];
  vantage6_version: string;
  code_url: string;
  documentation_url?: string;
  submission_comments?: string;
  functions: FunctionDescription[];
}

const MAX_TEXT = 10_000;
const MAX_ITEMS = 200;

type Obj = Record<string, unknown>;

function object(value: unknown, field: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DescriptionError(field, 'must be an object');
  return value as Obj;
}

function only(o: Obj, field: string, keys: readonly string[]): void {
  for (const key of Object.keys(o))
    if (!keys.includes(key))
      throw new DescriptionError(
        field ? `${field}.${key}` : key,
        `is not a known field (known: ${keys.join(', ')})`,
      );
}

function text(o: Obj, key: string, field: string, required: true): string;
function text(o: Obj, key: string, field: string, required: false): string | undefined;
function text(o: Obj, key: string, field: string, required: boolean): string | undefined {
  const at = field ? `${field}.${key}` : key;
  const value = o[key];
  if (value === undefined || value === null) {
    if (required) throw new DescriptionError(at, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') throw new DescriptionError(at, 'must be a string');
  if (required && value.trim() === '') throw new DescriptionError(at, 'must not be empty');
  if (value.length > MAX_TEXT) throw new DescriptionError(at, `must be at most ${MAX_TEXT} characters`);
  return value;
}

function flag(o: Obj, key: string, field: string): boolean | undefined {
  const value = o[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new DescriptionError(`${field}.${key}`, 'must be true or false');
  return value;
}

function oneOf<T extends string>(o: Obj, key: string, field: string, allowed: readonly T[]): T {
  const value = text(o, key, field, true);
  if (!allowed.includes(value as T))
    throw new DescriptionError(field ? `${field}.${key}` : key, `must be one of: ${allowed.join(', ')}`);
  return value as T;
}

function list(o: Obj, key: string, field: string, required: boolean): unknown[] {
  const at = field ? `${field}.${key}` : key;
  const value = o[key];
  if (value === undefined || value === null) {
    if (required) throw new DescriptionError(at, 'is required');
    return [];
  }
  if (!Array.isArray(value)) throw new DescriptionError(at, 'must be a list');
  if (value.length > MAX_ITEMS) throw new DescriptionError(at, `must have at most ${MAX_ITEMS} items`);
  return value;
}

function url(o: Obj, key: string, required: boolean): string | undefined {
  const value = required ? text(o, key, '', true) : text(o, key, '', false);
  if (value !== undefined && value !== '' && !/^https?:\/\/\S+$/.test(value))
    throw new DescriptionError(key, 'must be an http(s) URL');
  return value;
}

function unique(names: string[], field: string): void {
  const seen = new Set<string>();
  for (const [i, name] of names.entries()) {
    if (seen.has(name)) throw new DescriptionError(`${field}[${i}].name`, `repeats the name '${name}'`);
    seen.add(name);
  }
}

/** Checks an author's algorithm description; returns it typed, or throws {@link DescriptionError}. */
export function parseAlgorithmDescription(input: unknown): AlgorithmDescription {
  const o = object(input, 'body');
  only(o, '', [
    'name',
    'display_name',
    'description',
    'image',
    'partitioning',
    'vantage6_version',
    'code_url',
    'documentation_url',
    'submission_comments',
    'functions',
  ]);
  const name = text(o, 'name', '', true);
  const image = text(o, 'image', '', true);
  parseImage(image); // refuses a malformed reference
  const partitioning = oneOf(o, 'partitioning', '', PARTITIONINGS);
  const vantage6Version = text(o, 'vantage6_version', '', true);
  const codeUrl = url(o, 'code_url', true) as string;
  const functions = list(o, 'functions', '', true).map((f, i) => parseFunction(f, `functions[${i}]`));
  if (functions.length === 0) throw new DescriptionError('functions', 'must describe at least one function');
  unique(
    functions.map((f) => f.name),
    'functions',
  );
  return strip({
    name,
    display_name: text(o, 'display_name', '', false),
    description: text(o, 'description', '', false),
    image,
    partitioning,
    vantage6_version: vantage6Version,
    code_url: codeUrl,
    documentation_url: url(o, 'documentation_url', false),
    submission_comments: text(o, 'submission_comments', '', false),
    functions,
  });
}

function parseFunction(input: unknown, field: string): FunctionDescription {
  const o = object(input, field);
  only(o, field, [
    'name',
    'display_name',
    'description',
    'type',
    'standalone',
    'databases',
    'arguments',
    'ui_visualizations',
    'output',
  ]);
  const name = text(o, 'name', field, true);
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name))
    throw new DescriptionError(`${field}.name`, 'must be a method name (letters, digits, _ and .)');
  const args = list(o, 'arguments', field, false).map((a, i) => parseArgument(a, `${field}.arguments[${i}]`));
  unique(
    args.map((a) => a.name),
    `${field}.arguments`,
  );
  for (const [i, a] of args.entries()) checkCondition(a, args, `${field}.arguments[${i}]`);
  const databases = list(o, 'databases', field, false).map((d, i) => {
    const at = `${field}.databases[${i}]`;
    const db = object(d, at);
    only(db, at, ['name', 'description']);
    return strip({ name: text(db, 'name', at, true), description: text(db, 'description', at, false) });
  });
  const visualizations = list(o, 'ui_visualizations', field, false).map((v, i) => {
    const at = `${field}.ui_visualizations[${i}]`;
    const vis = object(v, at);
    only(vis, at, ['name', 'description', 'type', 'schema']);
    const schema =
      vis.schema === undefined || vis.schema === null ? undefined : object(vis.schema, `${at}.schema`);
    if (
      schema?.keys !== undefined &&
      (!Array.isArray(schema.keys) || schema.keys.some((k) => typeof k !== 'string'))
    )
      throw new DescriptionError(`${at}.schema.keys`, 'must be a list of result keys (strings)');
    return strip({
      name: text(vis, 'name', at, true),
      description: text(vis, 'description', at, false),
      type: oneOf(vis, 'type', at, VISUALIZATION_TYPES),
      schema,
    });
  });
  let output: OutputDeclaration | undefined;
  if (o.output !== undefined && o.output !== null) {
    const parsed = parseOutputDeclaration(o.output);
    if ('error' in parsed)
      throw new DescriptionError(`${field}.output${parsed.field ? `.${parsed.field}` : ''}`, parsed.error);
    output = parsed.declaration;
  }
  return strip({
    name,
    display_name: text(o, 'display_name', field, false),
    description: text(o, 'description', field, false),
    type: oneOf(o, 'type', field, FUNCTION_TYPES),
    output,
    standalone: flag(o, 'standalone', field),
    databases,
    arguments: args,
    ui_visualizations: visualizations,
  });
}

function parseArgument(input: unknown, field: string): ArgumentDescription {
  const o = object(input, field);
  only(o, field, [
    'name',
    'display_name',
    'description',
    'type',
    'allowed_values',
    'has_default_value',
    'default_value',
    'conditional_on',
    'conditional_operator',
    'conditional_value',
    'is_frontend_only',
  ]);
  const type = oneOf(o, 'type', field, ARGUMENT_TYPES);
  const allowed = list(o, 'allowed_values', field, false).map((v, i) => {
    if (typeof v !== 'string' && typeof v !== 'number')
      throw new DescriptionError(`${field}.allowed_values[${i}]`, 'must be a string or a number');
    return v;
  });
  for (const [i, v] of allowed.entries()) {
    const base = type.replace(/_list$/, '') as ArgumentType;
    if (!matchesType(base, v))
      throw new DescriptionError(`${field}.allowed_values[${i}]`, `must be of the argument's type (${base})`);
  }
  const hasDefault = flag(o, 'has_default_value', field);
  const defaultValue = text(o, 'default_value', field, false);
  if (defaultValue !== undefined && defaultValue !== '' && !hasDefault)
    throw new DescriptionError(`${field}.default_value`, 'needs has_default_value: true');
  if (defaultValue !== undefined && defaultValue !== '' && !defaultMatches(type, defaultValue))
    throw new DescriptionError(`${field}.default_value`, `must be a value of type ${type}`);
  const conditionalOn = text(o, 'conditional_on', field, false);
  const operator = text(o, 'conditional_operator', field, false);
  if (Boolean(conditionalOn) !== Boolean(operator))
    throw new DescriptionError(
      `${field}.${conditionalOn ? 'conditional_operator' : 'conditional_on'}`,
      'is required with the other conditional field',
    );
  if (operator && !(CONDITIONAL_OPERATORS as readonly string[]).includes(operator))
    throw new DescriptionError(
      `${field}.conditional_operator`,
      `must be one of: ${CONDITIONAL_OPERATORS.join(', ')}`,
    );
  if (conditionalOn && !hasDefault)
    throw new DescriptionError(
      `${field}.conditional_on`,
      'needs a default value: an argument without one is always given',
    );
  return strip({
    name: text(o, 'name', field, true),
    display_name: text(o, 'display_name', field, false),
    description: text(o, 'description', field, false),
    type,
    allowed_values: allowed.length > 0 ? allowed : undefined,
    has_default_value: hasDefault,
    default_value: defaultValue,
    conditional_on: conditionalOn,
    conditional_operator: operator,
    conditional_value: text(o, 'conditional_value', field, false),
    is_frontend_only: flag(o, 'is_frontend_only', field),
  });
}

function checkCondition(a: ArgumentDescription, all: ArgumentDescription[], field: string): void {
  if (!a.conditional_on) return;
  if (a.conditional_on === a.name)
    throw new DescriptionError(`${field}.conditional_on`, 'names the argument itself');
  const target = all.find((x) => x.name === a.conditional_on);
  if (!target) throw new DescriptionError(`${field}.conditional_on`, `names no argument of the function`);
  if (target.type.endsWith('_list') || target.type === 'json' || target.type === 'organization')
    throw new DescriptionError(
      `${field}.conditional_on`,
      `names an argument of type ${target.type}, which cannot be compared`,
    );
  // A chain of conditions that comes back to where it started is circular.
  const seen = new Set([a.name]);
  for (let at: ArgumentDescription | undefined = target; at?.conditional_on;) {
    if (seen.has(at.name))
      throw new DescriptionError(`${field}.conditional_on`, 'makes a circle of conditions');
    seen.add(at.name);
    const next: string = at.conditional_on;
    at = all.find((x) => x.name === next);
  }
}

function defaultMatches(type: ArgumentType, value: string): boolean {
  if (type === 'string' || type === 'column') return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(type === 'boolean' ? value.toLowerCase() : value);
  } catch {
    return false;
  }
  if (type === 'boolean') return ['true', 'false', '1', '0'].includes(value.toLowerCase());
  return type === 'json' || matchesType(type, parsed);
}

/** Whether `value` (parsed JSON) is of an argument type. */
export function matchesType(type: ArgumentType, value: unknown): boolean {
  switch (type) {
    case 'string':
    case 'column':
      return typeof value === 'string';
    case 'integer':
    case 'organization':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'json':
      return value !== undefined;
    default: {
      const base = type.replace(/_list$/, '') as ArgumentType;
      return Array.isArray(value) && value.every((v) => matchesType(base, v));
    }
  }
}

function strip<T extends object>(o: T): T {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined) delete o[key];
  return o;
}
