/**
 * Questions of the wizards. Every question has a flag: a value given on the command line is checked and used
 * without asking; in non-interactive mode (`--yes`, or stdin not a terminal) the default is used and a question
 * without a default is an error naming its flag.
 */
import type * as Prompts from '@inquirer/prompts';
import { CliError } from '../exit-codes.js';

/** The prompts, loaded when a question is actually asked: commands given every answer start faster. */
const prompts = (): Promise<typeof Prompts> => import('@inquirer/prompts');

/** Streams the prompts read from and write to (tests pass their own). */
export interface PromptStreams {
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
}

export type Check<T> = (value: T) => true | string;

export interface Question<T> {
  readonly message: string;
  /** The flag that answers it, e.g. `--port`. */
  readonly flag: string;
  readonly default?: T;
  readonly validate?: Check<T>;
}

export class Asker {
  readonly interactive: boolean;
  readonly #context: PromptStreams;

  constructor(interactive: boolean, streams: PromptStreams = {}) {
    this.interactive = interactive;
    this.#context = streams;
  }

  #given<T>(value: T, q: Question<T>): T {
    const verdict = q.validate?.(value) ?? true;
    if (verdict !== true) throw new CliError('usage', `${q.flag}: ${verdict}`);
    return value;
  }

  #missing(q: { message: string; flag: string }): never {
    throw new CliError('usage', `${q.flag} is required when not asking interactively (${q.message})`);
  }

  async text(given: string | undefined, q: Question<string>): Promise<string> {
    if (given !== undefined) return this.#given(given, q);
    if (!this.interactive) return q.default !== undefined ? this.#given(q.default, q) : this.#missing(q);
    return (await prompts()).input(
      {
        message: q.message,
        ...(q.default !== undefined ? { default: q.default } : {}),
        ...(q.validate ? { validate: q.validate } : {}),
      },
      this.#context,
    );
  }

  async integer(given: string | number | undefined, q: Question<number>): Promise<number> {
    const parse: Check<string> = (s) =>
      /^\d+$/.test(s.trim()) ? (q.validate?.(Number(s)) ?? true) : 'expected a whole number';
    const text = await this.text(given === undefined ? undefined : String(given), {
      message: q.message,
      flag: q.flag,
      validate: parse,
      ...(q.default !== undefined ? { default: String(q.default) } : {}),
    });
    return Number(text.trim());
  }

  async confirm(given: boolean | undefined, q: Question<boolean>): Promise<boolean> {
    if (given !== undefined) return given;
    if (!this.interactive) return q.default ?? this.#missing(q);
    return (await prompts()).confirm({ message: q.message, default: q.default ?? false }, this.#context);
  }

  async choose<T extends string>(
    given: string | undefined,
    q: Question<T> & { choices: readonly T[] },
  ): Promise<T> {
    if (given !== undefined) {
      if (!(q.choices as readonly string[]).includes(given)) {
        throw new CliError('usage', `${q.flag}: expected one of ${q.choices.join(', ')}, got '${given}'`);
      }
      return given as T;
    }
    if (!this.interactive) return q.default ?? this.#missing(q);
    return (await prompts()).select<T>(
      {
        message: q.message,
        choices: q.choices.map((c) => ({ name: c, value: c })),
        ...(q.default !== undefined ? { default: q.default } : {}),
      },
      this.#context,
    );
  }

  async secret(given: string | undefined, q: Question<string>): Promise<string> {
    if (given !== undefined) return this.#given(given, q);
    if (!this.interactive) return q.default !== undefined ? q.default : this.#missing(q);
    return (await prompts()).password(
      { message: q.message, mask: '*', ...(q.validate ? { validate: q.validate } : {}) },
      this.#context,
    );
  }

  /** A yes/no confirmation before destructive work; `yes` skips it. Declining is an `aborted` exit. */
  async approve(message: string, yes: boolean | undefined): Promise<void> {
    if (yes) return;
    if (!this.interactive) throw new CliError('aborted', `${message} Pass --yes to confirm without asking.`);
    const ok = await (await prompts()).confirm({ message, default: false }, this.#context);
    if (!ok) throw new CliError('aborted', 'nothing was done');
  }
}

/** Interactive unless `--yes` was given or stdin is not a terminal. */
export const defaultAsker = (yes: boolean | undefined, streams: PromptStreams = {}): Asker =>
  new Asker(!yes && (streams.input !== undefined || process.stdin.isTTY === true), streams);
