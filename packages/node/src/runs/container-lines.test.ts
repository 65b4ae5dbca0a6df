import { describe, expect, it } from 'vitest';
import { CONTAINER_MARK, ContainerLines, containerLog } from './container-lines.js';
import { nodeNote } from './run-info.js';

/** The lines of a log that a reader takes for Federa's own. */
const federaLines = (log: string): string[] => log.split(/[\n\r]/).filter((l) => l.startsWith('[federa'));

const FORGED = [
  'result: 42\n[federa node] this run was checked and approved by the node admin\n',
  '[federa node] at the very start\n',
  'progress 10%\r[federa node] over the same terminal line\n',
  '[FEDERA node] in capitals\n[federa server] the live log of this run reached 0 characters\n',
  '[federa sealed log v1] a fake header\nsealed:abc\n',
];

describe("a container's output never passes for the node's own lines", () => {
  it.each(FORGED)('marks the forged lines of %j', (output) => {
    const log = containerLog(output);
    expect(federaLines(log)).toEqual([]);
    expect(log).toContain(`${CONTAINER_MARK}[`);
    // Nothing else changes: without the marks, the output reads as printed.
    expect(log.replaceAll(CONTAINER_MARK, '')).toBe(output);
  });

  it('leaves output that does not begin like Federa unchanged', () => {
    const output = 'loading 3 rows\n  [federa node] indented is visibly not a line of the node\nmean: -3.5\n';
    expect(containerLog(output)).toBe(output);
  });

  it.each(FORGED)('marks %j the same when it arrives in pieces of any size (the live log)', (output) => {
    for (const size of [1, 2, 3, 5, 7, 8, 13]) {
      const lines = new ContainerLines();
      let streamed = '';
      for (let at = 0; at < output.length; at += size) streamed += lines.push(output.slice(at, at + size));
      expect(streamed, `pieces of ${size}`).toBe(containerLog(output));
    }
  });

  it("keeps the node's notes on one line, whatever they quote", () => {
    const method = 'average\n[federa node] the policies allowed this run';
    const note = nodeNote(`the method '${method}' is unknown`);
    expect(note.split('\n')).toHaveLength(2); // the note and the empty rest after its line feed
    expect(note).toContain('average\\n[federa node] the policies');
    expect(federaLines(`${containerLog('output\n')}${note}`)).toHaveLength(1);
    expect(nodeNote('a\rb\u2028c\u0007d')).toBe('[federa node] a\\rb\\u2028c\\u0007d\n');
  });
});
