import { describe, expect, test } from 'vitest';
import { duplicates } from '../../../conformance/support/messaging-sink.ts';
import type { SinkRequest } from '../../../src/sink/sink-server.ts';

const request = (role: string, id: string, answered: number): SinkRequest => ({
  role,
  method: 'POST',
  rest: '',
  headers: { 'svc-message-id': id },
  body: Buffer.alloc(0),
  at: 0,
  signature: { ok: true, key: 'current' },
  answered,
  answeredWith: { headers: {}, body: Buffer.from('ok') },
});

describe('duplicates', () => {
  test('a message answered 2xx and sent again is one line; retries after a 500 are not', () => {
    const lines = duplicates(
      [
        request('dest', 'msg_1', 500),
        request('dest', 'msg_1', 200),
        request('dest', 'msg_2', 200),
        request('dest', 'msg_2', 200),
        request('callback', 'msg_1', 200),
      ],
      'Svc-Message-Id',
    );
    expect(lines).toEqual(['sink: dest arrived again after a 2xx answer (the same message id)']);
  });
});
