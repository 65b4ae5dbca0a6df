/**
 * docs/socket-protocol.md against the typed event map of socket-events.ts: the tables "Events from the server" and
 * "Events from clients" list exactly the events of `ServerToClientEvents` and `ClientToServerEvents`, each with
 * the payload the map declares (the fields of an object payload, nested ones too, or the kind of a plain value).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** A payload as both sides can say it: `none`, `integer`, `text`, `text?`, or alternatives of field lists. */
type Payload = string;

const MAP_FILE = fileURLToPath(new URL('./socket-events.ts', import.meta.url));
const DOC_FILE = fileURLToPath(new URL('../../../docs/socket-protocol.md', import.meta.url));

let compiled: ts.Program | undefined;
const program = (): ts.Program =>
  (compiled ??= ts.createProgram([MAP_FILE], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  }));

/** The events of one interface of the map, each with its payload. */
function mapEvents(interfaceName: string): Map<string, Payload> {
  const checker = program().getTypeChecker();
  const source = program().getSourceFile(MAP_FILE);
  const decl = source?.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === interfaceName,
  );
  if (!decl) throw new Error(`${interfaceName} is not declared in socket-events.ts`);

  const fields = (type: ts.Type, prefix: string): string[] =>
    checker.getPropertiesOfType(type).flatMap((prop) => {
      const path = `${prefix}${prop.name}`;
      let t = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(prop, decl));
      if (checker.isArrayType(t)) t = checker.getTypeArguments(t as ts.TypeReference)[0] ?? t;
      const nested = t.isUnion() || !(t.flags & ts.TypeFlags.Object) ? [] : fields(t, `${path}.`);
      return [path, ...nested];
    });
  const describePayload = (param: ts.Symbol | undefined): Payload => {
    if (!param) return 'none';
    const declared = param.valueDeclaration;
    const optional =
      declared !== undefined && ts.isParameter(declared) && declared.questionToken !== undefined;
    const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(param, decl));
    if (type.flags & ts.TypeFlags.NumberLike) return 'integer';
    if (type.flags & ts.TypeFlags.StringLike) return optional ? 'text?' : 'text';
    const alternatives = type.isUnion() ? type.types : [type];
    return alternatives
      .map((t) => fields(t, '').sort().join(', '))
      .sort()
      .join(' | ');
  };

  const events = new Map<string, Payload>();
  const type = checker.getTypeAtLocation(decl);
  for (const event of checker.getPropertiesOfType(type)) {
    const signature = checker.getTypeOfSymbolAtLocation(event, decl).getCallSignatures()[0];
    events.set(event.name, describePayload(signature?.getParameters()[0]));
  }
  return events;
}

/** The `{...}` groups at the top level of a text. */
function braceGroups(text: string): string[] {
  const groups: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{' && depth++ === 0) start = i + 1;
    if (text[i] === '}' && --depth === 0) groups.push(text.slice(start, i));
  }
  return groups;
}

/** `a, b: [{c, d}], e` → `a`, `b`, `b.c`, `b.d`, `e`. */
function docFields(group: string, prefix: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of group) {
    if ('{['.includes(ch)) depth++;
    if ('}]'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      entries.push(current);
      current = '';
    } else current += ch;
  }
  entries.push(current);
  return entries.flatMap((entry) => {
    const [name = '', value] = entry.split(/:(.*)/s).map((s) => s.trim());
    const nested = value ? braceGroups(value)[0] : undefined;
    return [`${prefix}${name}`, ...(nested !== undefined ? docFields(nested, `${prefix}${name}.`) : [])];
  });
}

/** The events of one table of the document (the rows under a `## ` heading), each with its payload. */
function docEvents(heading: string): Map<string, Payload> {
  const doc = readFileSync(DOC_FILE, 'utf8');
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/socket-protocol.md has no section "${heading}"`);
  const end = doc.indexOf('\n## ', start + 1);
  const events = new Map<string, Payload>();
  for (const line of doc.slice(start, end < 0 ? undefined : end).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const name = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    const payload = cells[2] ?? '';
    if (!name) continue;
    const groups = braceGroups(payload);
    let described: Payload;
    if (groups.length > 0)
      described = groups
        .map((g) => docFields(g, '').sort().join(', '))
        .sort()
        .join(' | ');
    else if (/^`""`, then nothing$/.test(payload)) described = 'text?';
    else if (/\binteger\b/.test(payload)) described = 'integer';
    else if (/^text\b/.test(payload)) described = 'text';
    else if (/^none\b/.test(payload)) described = 'none';
    else described = `unreadable: ${payload}`;
    expect(events.has(name), `${name} is listed twice under "${heading}"`).toBe(false);
    events.set(name, described);
  }
  return events;
}

describe('docs/socket-protocol.md and the event map', () => {
  it('"Events from the server" are the ServerToClientEvents, with their payloads', () => {
    expect(Object.fromEntries(docEvents('Events from the server'))).toEqual(
      Object.fromEntries(mapEvents('ServerToClientEvents')),
    );
  });

  it('"Events from clients" are the ClientToServerEvents, with their payloads', () => {
    expect(Object.fromEntries(docEvents('Events from clients'))).toEqual(
      Object.fromEntries(mapEvents('ClientToServerEvents')),
    );
  });

  it('reads payloads of either side the same way', () => {
    expect(docFields('kill_list: [{task_id, result_id}], collaboration_id', '')).toEqual([
      'kill_list',
      'kill_list.task_id',
      'kill_list.result_id',
      'collaboration_id',
    ]);
    expect(mapEvents('ServerToClientEvents').get('kill_containers')).toBe(
      'collaboration_id, kill_list, kill_list.organization_id, kill_list.result_id, kill_list.task_id | collaboration_id, node_id',
    );
  });
});
