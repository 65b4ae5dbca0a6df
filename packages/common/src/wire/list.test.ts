import { describe, expect, it } from 'vitest';
import { listOf, refId } from './list.js';

describe('listOf', () => {
  it('reads a bare array and the {data, links} form alike', () => {
    expect(listOf<number>([1, 2])).toEqual([1, 2]);
    expect(listOf<number>({ data: [3], links: { first: '/x?page=1' } })).toEqual([3]);
  });

  it('answers an empty list for anything that is not a listing', () => {
    for (const body of [null, undefined, 'text', 7, { msg: 'refused' }, { data: 'x' }]) {
      expect(listOf(body)).toEqual([]);
    }
  });
});

describe('refId', () => {
  it('reads the id of a reference or a plain id', () => {
    expect(refId({ id: 4 })).toBe(4);
    expect(refId(5)).toBe(5);
    expect(refId(null)).toBeUndefined();
  });
});
