/**
 * Keeps the container's output from passing for the node's (or the server's) own lines in a run's log
 * (docs/run-logs.md, "Whose line is it"). Federa's lines begin with `[federa` (`[federa node]`, `[federa server]`,
 * `[federa sealed log v1]`); a line of the container that begins so, after a line feed or a carriage return (a
 * terminal starts a line again there too), gets {@link CONTAINER_MARK} in front. The node's own notes never hold a
 * line break (run-info.ts `nodeNote`), so what begins with `[federa` is Federa's, whatever the container printed.
 */
export const CONTAINER_MARK = '[algorithm] ';

const RESERVED = '[federa';
const LINE_START_RESERVED = /(^|[\n\r])(\[federa)/gi;

/** The whole of a container's log, with its lines that begin like Federa's marked. */
export const containerLog = (text: string): string =>
  text.replace(LINE_START_RESERVED, `$1${CONTAINER_MARK}$2`);

/**
 * The same for a log that arrives in pieces (the live log): a line's start that may still become `[federa` is held
 * back until it is told, so a piece boundary cannot split the mark away. The pieces given out, joined, are
 * {@link containerLog} of the pieces taken in (up to what is still held).
 */
export class ContainerLines {
  /** The start of the current line, held while it may still become `[federa`. */
  #held = '';
  /** Whether the next character starts a line. */
  #atStart = true;

  push(piece: string): string {
    let text = this.#held + piece;
    const startsLine = this.#held !== '' || this.#atStart;
    this.#held = '';
    if (text === '') return '';
    // A line start at the end of the text that could still become `[federa` waits for more.
    const lastBreak = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
    const tailStart = lastBreak + 1;
    const tail = text.slice(tailStart);
    if (
      (tailStart > 0 || startsLine) &&
      tail.length < RESERVED.length &&
      RESERVED.startsWith(tail.toLowerCase())
    ) {
      this.#held = tail;
      text = text.slice(0, tailStart);
    }
    if (text === '') return '';
    const marked = (startsLine ? '' : '\u0000') + text;
    const out = marked.replace(LINE_START_RESERVED, `$1${CONTAINER_MARK}$2`);
    this.#atStart = /[\n\r]$/.test(text);
    return startsLine ? out : out.slice(1);
  }
}
