/** SSE events as bytes, and one frame shared by the subscribers of a message. */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { eventFrame, heartbeatFrame, SharedFrames } from '../../../src/reference/kv/sse-frames.ts';

describe('eventFrame', () => {
  it('splits the data into data lines at every kind of newline, and ends the event', () => {
    expect(eventFrame('a\r\nb\rc\nd é').toString('utf8')).toBe('data: a\ndata: b\ndata: c\ndata: d é\n\n');
    expect(heartbeatFrame.toString('latin1')).toBe(': keep-alive\n\n');
  });
});

describe('SharedFrames', () => {
  it('gives the subscribers of one message the same Buffer, encoded once', () => {
    const frames = new SharedFrames();
    let renders = 0;
    const render = () => {
      renders++;
      return 'message,ch,hello';
    };
    try {
      // Each subscriber's Redis connection hands it a copy of its own.
      const first = frames.frame('message,ch,', Buffer.from('hello'), render);
      const second = frames.frame('message,ch,', Buffer.from('hello'), render);
      expect(second).toBe(first);
      expect(renders).toBe(1);
      expect(first.toString()).toBe('data: message,ch,hello\n\n');
    } finally {
      frames.clear();
    }
  });

  it('encodes other bytes, or the same bytes under another prefix, afresh', () => {
    const frames = new SharedFrames();
    try {
      const hello = frames.frame('message,ch,', Buffer.from('hello'), () => 'message,ch,hello');
      const other = frames.frame('message,ch,', Buffer.from('hellp'), () => 'message,ch,hellp');
      const elsewhere = frames.frame('message,ch2,', Buffer.from('hello'), () => 'message,ch2,hello');
      expect(other).not.toBe(hello);
      expect(other.toString()).toBe('data: message,ch,hellp\n\n');
      expect(elsewhere.toString()).toBe('data: message,ch2,hello\n\n');
    } finally {
      frames.clear();
    }
  });

  it('keeps a copy of the bytes: a view into a read buffer that is reused does not fool it', () => {
    const frames = new SharedFrames();
    try {
      const readBuffer = Buffer.from('one');
      const first = frames.frame('message,ch,', readBuffer, () => 'message,ch,one');
      readBuffer.write('two');
      const second = frames.frame('message,ch,', Buffer.from('two'), () => 'message,ch,two');
      expect(second).not.toBe(first);
      expect(second.toString()).toBe('data: message,ch,two\n\n');
    } finally {
      frames.clear();
    }
  });

  it('keeps nothing past its hold', async () => {
    const frames = new SharedFrames();
    try {
      const first = frames.frame('message,ch,', Buffer.from('x'), () => 'message,ch,x');
      await sleep(1_100);
      expect(frames.frame('message,ch,', Buffer.from('x'), () => 'message,ch,x')).not.toBe(first);
    } finally {
      frames.clear();
    }
  });
});
