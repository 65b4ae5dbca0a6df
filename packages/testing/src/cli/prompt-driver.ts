/**
 * Drives the wizards' prompts in tests: a fake terminal whose output is watched; when the next expected question
 * appears, its answer is typed into the input stream (keystrokes, as a user would: text then Enter).
 */
import { PassThrough, Writable } from 'node:stream';
import type { PromptStreams } from '@federa/cli';

export const KEYS = { enter: '\r', down: '\x1b[B', up: '\x1b[A' } as const;

const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

export interface Exchange {
  /** The question as shown on screen. */
  readonly ask: RegExp;
  /** Keystrokes; a plain answer needs KEYS.enter at the end. */
  readonly type: string;
}

export class PromptDriver {
  readonly streams: PromptStreams;
  readonly #input = new PassThrough();
  readonly #pending: Exchange[];
  #screen = '';
  #sinceAnswer = '';
  readonly asked: string[] = [];

  constructor(script: readonly Exchange[]) {
    this.#pending = [...script];
    const output = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        const text = stripAnsi(chunk.toString());
        this.#screen += text;
        this.#sinceAnswer += text;
        this.#maybeAnswer();
        done();
      },
    });
    // Each prompt pipes into the output and ends it when done; a terminal stays open for the next prompt.
    Object.assign(output, { isTTY: true, columns: 200, rows: 50, end: () => output });
    Object.assign(this.#input, { isTTY: true, setRawMode: () => undefined });
    this.streams = { input: this.#input, output };
  }

  #maybeAnswer(): void {
    const next = this.#pending[0];
    if (!next || !next.ask.test(this.#sinceAnswer)) return;
    this.#pending.shift();
    this.asked.push(next.ask.source);
    this.#sinceAnswer = '';
    setTimeout(() => {
      for (const ch of next.type.match(/\x1b\[[A-D]|[\s\S]/g) ?? []) this.#input.write(ch);
    }, 5);
  }

  /** Questions of the script that were never shown. */
  get unanswered(): string[] {
    return this.#pending.map((e) => e.ask.source);
  }

  get screen(): string {
    return this.#screen;
  }
}
