/**
 * `vnode review list | show | release | refuse | log`: the data officer's side of results held at the node
 * (docs/output-control.md#held-results). The commands read and write the node's review folder on this host; the
 * running node picks a decision up within a second and reports the run (a stopped node does so when it starts).
 */
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import {
  chainFiles,
  detectPayloadFormat,
  listHeldResults,
  MAX_REVIEW_NOTE,
  readHeldOutput,
  readHeldResult,
  writeReviewDecision,
  type HeldEntry,
  type ReviewVerdict,
} from '@federa/common';
import { checkNodeConfig } from '../config/validate.js';
import { CliError } from '../exit-codes.js';
import { examples } from '../util/command.js';
import { resolveRef, withContext, type Ctx } from './command-context.js';
import { nodeAuditDir, nodeLayout, nodeReviewDir } from './start.js';

interface DirOptions extends Ctx {
  dir?: string;
  auditDir?: string;
}

/** Who decides: the account on this host (the one behind sudo when run with it). */
export const reviewer = (env: NodeJS.ProcessEnv = process.env): string => {
  const sudo = env.SUDO_USER;
  let name = 'unknown';
  try {
    name = userInfo().username;
  } catch {
    /* no passwd entry: an unnamed container user */
  }
  return sudo && sudo !== name ? `${sudo} (as ${name})` : name;
};

const resultId = (text: string): number => {
  if (!/^[1-9][0-9]{0,15}$/.test(text))
    throw new CliError('usage', `<run> must be a result id, not '${text}'`);
  return Number(text);
};

const ageOf = (iso: string, now: number): string => {
  const m = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000));
  return m < 120 ? `${m} min` : `${Math.round(m / 60)} h`;
};

/** `vnode review list`: one line per held result. */
export async function reviewList(dir: string, now = Date.now()): Promise<string> {
  const entries = await listHeldResults(dir);
  if (entries.length === 0) return `no result is held (${dir})\n`;
  const rows = entries.map((e) => [
    String(e.held.result_id),
    String(e.held.task_id),
    e.held.image,
    e.held.function ?? '-',
    e.held.initiating_user_id === null ? '-' : String(e.held.initiating_user_id),
    ageOf(e.held.held_at, now),
    e.held.expires_at,
    e.decision ? `${e.decision.decision === 'release' ? 'released' : 'refused'}, being reported` : 'waiting',
  ]);
  const head = ['RUN', 'TASK', 'IMAGE', 'FUNCTION', 'USER', 'HELD', 'EXPIRES', 'STATE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return `${[head, ...rows].map(line).join('\n')}\n`;
}

const heldOrFail = async (dir: string, id: number): Promise<HeldEntry> => {
  const entry = await readHeldResult(dir, id);
  if (!entry) throw new CliError('state', `run ${id} is not held by this node (looked in ${dir})`);
  return entry;
};

/** `vnode review show <run>`: what was held and why, and the plain output (on this host only). */
export async function reviewShow(dir: string, id: number): Promise<string> {
  const { held, decision } = await heldOrFail(dir, id);
  const output = await readHeldOutput(dir, id);
  const { format, body } = detectPayloadFormat(output);
  let shown: string;
  if (format === 'json') {
    try {
      shown = JSON.stringify(JSON.parse(Buffer.from(body).toString('utf8')), null, 2);
    } catch {
      shown = Buffer.from(body).toString('utf8');
    }
  } else shown = `(${output.length} bytes in the format '${format}'; not shown as text)`;
  const fields: [string, string][] = [
    ['run (result id)', String(held.result_id)],
    ['task', String(held.task_id)],
    ['image', held.image],
    ['function', held.function ?? '-'],
    ['initiating user', held.initiating_user_id === null ? '-' : String(held.initiating_user_id)],
    [
      'initiating organization',
      held.initiating_organization_id === null ? '-' : String(held.initiating_organization_id),
    ],
    ['held at', held.held_at],
    ['expires at (refused then)', held.expires_at],
    ['held because', held.held_because.join('; ')],
    ['checks passed', held.checks.length ? held.checks.join(', ') : 'none (no declared output)'],
    ['suppressed', held.suppressed ? 'yes (see federa_suppressed in the output)' : 'no'],
    ['decision', decision ? `${decision.decision} by ${decision.by} at ${decision.at}` : 'none yet'],
  ];
  const width = Math.max(...fields.map(([k]) => k.length));
  return `${fields.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n\n--- output (${held.output_bytes} bytes) ---\n${shown}\n\n--- log ---\n${held.log}${held.log.endsWith('\n') ? '' : '\n'}`;
}

/** `vnode review release|refuse <run>`: records the decision for the node to carry out. */
export async function reviewDecide(
  dir: string,
  id: number,
  decision: ReviewVerdict,
  note: string,
  by = reviewer(),
): Promise<string> {
  if (note.length > MAX_REVIEW_NOTE)
    throw new CliError('usage', `--note is at most ${MAX_REVIEW_NOTE} characters (it has ${note.length})`);
  if (decision === 'refuse' && note.trim() === '')
    throw new CliError('usage', 'a refusal needs --note: it tells the researcher why');
  const entry = await heldOrFail(dir, id);
  if (entry.decision)
    throw new CliError(
      'state',
      `run ${id} was decided already (${entry.decision.decision} by ${entry.decision.by} at ${entry.decision.at})`,
    );
  const written = await writeReviewDecision(dir, id, { decision, note, by, at: new Date().toISOString() });
  if (!written) throw new CliError('state', `run ${id} was decided meanwhile; see vnode review show ${id}`);
  return `run ${id} ${decision === 'release' ? 'released' : 'refused'}: the running node reports it within a second (a stopped node when it starts)\n`;
}

/** `vnode review log [run]`: the output policy's entries of the node's audit log. */
export async function reviewLog(auditDir: string, id?: number): Promise<string> {
  const files = (await chainFiles(auditDir).catch(() => new Map<string, string[]>())).get('node') ?? [];
  const lines: string[] = [];
  for (const file of files)
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      if (!line.includes('"output.')) continue;
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (typeof e.event !== 'string' || !e.event.startsWith('output.')) continue;
      if (id !== undefined && e.result_id !== id) continue;
      const { v: _v, seq, at, event, hash: _h, prev: _p, keyed: _k, ...rest } = e;
      lines.push(`${String(seq)}  ${String(at)}  ${event}  ${JSON.stringify(rest)}`);
    }
  return lines.length ? `${lines.join('\n')}\n` : `no output-policy entry in ${auditDir}\n`;
}

const dirs = async (o: DirOptions): Promise<{ review: string; audit: string }> => {
  if (o.dir !== undefined || o.auditDir !== undefined)
    return { review: o.dir ?? '', audit: o.auditDir ?? '' };
  const ref = await resolveRef(o);
  const layout = nodeLayout(ref, checkNodeConfig(ref.file, o.environment, ref.name, process.env));
  return { review: nodeReviewDir(layout), audit: nodeAuditDir(layout) };
};

const withDirs = (cmd: Command): Command =>
  withContext(cmd)
    .option('--dir <path>', "the node's review folder (default: <data folder>/review of the named node)")
    .option('--audit-dir <path>', "the node's audit folder (default: <data folder>/audit of the named node)");

export function addReviewCommands(program: Command): void {
  const review = program
    .command('review')
    .description("Results the node holds for its data officer's release (docs/output-control.md)");
  examples(
    withDirs(review.command('list').description('List the held results')).action(async (o: DirOptions) => {
      process.stdout.write(await reviewList((await dirs(o)).review));
    }),
    ['vnode review list -n hospital-a'],
  );
  examples(
    withDirs(
      review
        .command('show <run>')
        .description('Show a held result in plain, with why it is held (on this host only)'),
    ).action(async (run: string, o: DirOptions) => {
      process.stdout.write(await reviewShow((await dirs(o)).review, resultId(run)));
    }),
    ['vnode review show 42 -n hospital-a'],
  );
  for (const [verb, decision, what] of [
    ['release', 'release', 'Release a held result: the researcher receives it (encrypted for them)'],
    [
      'refuse',
      'refuse',
      'Refuse a held result: the researcher receives the refusal and the note, nothing else',
    ],
  ] as const)
    examples(
      withDirs(review.command(`${verb} <run>`).description(what))
        .option('--note <text>', 'a note for the researcher (required to refuse)', '')
        .action(async (run: string, o: DirOptions & { note: string }) => {
          process.stdout.write(await reviewDecide((await dirs(o)).review, resultId(run), decision, o.note));
        }),
      [
        `vnode review ${verb} 42 -n hospital-a --note "${verb === 'release' ? 'aggregate only, checked' : 'cells too small'}"`,
      ],
    );
  examples(
    withDirs(
      review
        .command('log [run]')
        .description("The output policy's audit entries: checks, suppressions, holds, releases and refusals"),
    ).action(async (run: string | undefined, o: DirOptions) => {
      process.stdout.write(
        await reviewLog((await dirs(o)).audit, run === undefined ? undefined : resultId(run)),
      );
    }),
    ['vnode review log -n hospital-a', 'vnode review log 42 -n hospital-a'],
  );
}
