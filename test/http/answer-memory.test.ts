/**
 * The HTTP client's budget for answers being read (issue 25): past it, one answer reads on and the
 * others wait; all arrive whole, and what was held at once stays near the budget. A real server on
 * loopback holds every answer half sent until all the requests have arrived, so all are read at once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AnswerMemory } from '../../src/http/answer-memory.ts';
import { httpRequest } from '../../src/http/http-client.ts';
import { halfSentServer } from '../support/half-sent-server.ts';
import { closeServer, listenOnLoopback } from '../support/loopback.ts';

const answerBytes = 600 * 1024;
const requests = 10;
const server = halfSentServer(answerBytes, requests);
let url = '';
beforeAll(async () => {
  url = (await listenOnLoopback(server)).url;
});
afterAll(() => closeServer(server));

describe('answer memory', () => {
  test('ten answers of 600 KB read at once under a 1 MB budget: whole, some waited, the budget held', async () => {
    const memory = new AnswerMemory(1024 * 1024);
    const answers = await Promise.all(
      Array.from({ length: requests }, (_, index) =>
        httpRequest({ url: `${url}/${index}`, answerMemory: memory, timeoutMs: 5_000 }),
      ),
    );
    for (const [index, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      expect(answer.body.toString('latin1')).toBe(String.fromCharCode(97 + index).repeat(answerBytes));
    }
    expect(memory.waits).toBeGreaterThan(0);
    // The budget, the answer that read on past it, and a chunk or two per waiting reader (without the
    // budget all ten, 6 MB, are held at once).
    expect(memory.peak).toBeLessThanOrEqual(memory.limit + answerBytes + requests * 128 * 1024);
    // Every answer's bytes are given back.
    expect(memory.reader(() => {}).hold(0)).toBe(false);
  });
});
