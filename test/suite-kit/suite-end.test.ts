/** The suites' end runs each closer registered once, in order, and forgets them. */
import { describe, expect, test } from 'vitest';
import { endSuites, onSuitesEnd } from '../../src/suite-kit/suite-end.ts';

describe('onSuitesEnd', () => {
  test('runs each closer once, in the order registered, and forgets them', async () => {
    const ran: string[] = [];
    const first = () => {
      ran.push('first');
    };
    onSuitesEnd(first);
    onSuitesEnd(async () => {
      ran.push('second');
    });
    onSuitesEnd(first);
    await endSuites();
    expect(ran).toEqual(['first', 'second']);
    await endSuites();
    expect(ran).toEqual(['first', 'second']);
  });
});
