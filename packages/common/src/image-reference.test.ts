import { describe, expect, it } from 'vitest';
import { imageReferenceProblem } from './image-reference.js';

describe('imageReferenceProblem', () => {
  it.each([
    'alpine',
    'federa/average-python:local',
    'harbor.example.org/project/algorithm:1.0',
    'localhost:5000/a/b',
    '127.0.0.1:5000/x_y__z/a-b--c:v1.2_3',
    `registry.io/a@sha256:${'a'.repeat(64)}`,
    `a:tag@sha256:${'0'.repeat(64)}`,
  ])('accepts %s', (ref) => {
    expect(imageReferenceProblem(ref)).toBeUndefined();
  });

  it.each([
    ['', /must not be empty/],
    [' ', /whitespace/],
    ['alpine ', /whitespace/],
    ['a\u0000b', /control/],
    ['a\nb', /whitespace/],
    ['Upper/Case', /path component 'Upper'/],
    ['../../etc', /registry host '\.\.'/],
    ['a/../b', /path component '\.\.'/],
    ['a//b', /empty path component/],
    ['/a', /empty path component/],
    ['a/', /empty path component/],
    ['a:', /invalid tag ''/],
    ['a:-x', /invalid tag/],
    ['a@sha256:xyz', /invalid digest/],
    ['host.example:99999/a', /registry port/],
    ['-bad-.example/a', /registry host/],
    ['a'.repeat(600), /at most 512/],
    [`${'a'.repeat(300)}:1`, /longer than 255/],
    [42, /must be a string/],
    [null, /must be a string/],
  ])('refuses %j', (ref, why) => {
    expect(imageReferenceProblem(ref)).toMatch(why);
  });
});
