/** /monitor, /subscribe, /psubscribe and /publish, as server-sent events over real HTTP. */
import { describe, expect, it } from 'vitest';
import {
  call,
  nextMatching,
  openStream as open,
  startTestReference,
  uniqueKey,
  useTestReference,
} from '../../support/reference-fixture.ts';

const env = useTestReference();

describe('/monitor', () => {
  it('starts with "OK", then one Redis MONITOR line per command with the client shown as 0.0.0.0:0', async () => {
    const stream = await open(env.ref, '/monitor');
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(await stream.next()).toBe('"OK"');
      const key = uniqueKey();
      await call(env.ref, `/set/${key}/${encodeURIComponent('say "hi"\n')}`);
      const line = await nextMatching(stream, (data) => data.includes(key));
      expect(line).toMatch(/^\d+\.\d{6} \[0 0\.0\.0\.0:0\] "set" "/);
      expect(line).toContain(`"${key}" "say \\"hi\\"\\n"`);
    } finally {
      stream.close();
    }
  });

  it('refuses the Read Only token, which may not run MONITOR', async () => {
    const res = await call(env.ref, '/monitor', { method: 'POST', token: env.ref.target.kv!.readOnlyToken! });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: expect.stringMatching(/^NOPERM /) });
  });
});

describe('/subscribe and /publish', () => {
  it('sends subscribe,<channel>,1 then every message in order, commas kept', async () => {
    const channel = uniqueKey('ch');
    const stream = await open(env.ref, `/subscribe/${encodeURIComponent(channel)}`);
    try {
      expect(await stream.next()).toBe(`subscribe,${channel},1`);
      const messages = ['one', 'two, with commas, here', 'three'];
      for (const message of messages) {
        const res = await call(env.ref, `/publish/${encodeURIComponent(channel)}/${encodeURIComponent(message)}`, {
          method: 'POST',
        });
        expect(res.json).toEqual({ result: 1 });
      }
      for (const message of messages) expect(await stream.next()).toBe(`message,${channel},${message}`);
    } finally {
      stream.close();
    }
  });

  it('publishes the POST body and answers the number of receivers', async () => {
    const res = await call(env.ref, `/publish/${uniqueKey('nobody')}`, { body: 'hello' });
    expect(res.json).toEqual({ result: 0 });
  });

  it('keeps a newline inside a message', async () => {
    const channel = uniqueKey('ch');
    const stream = await open(env.ref, `/subscribe/${channel}`);
    try {
      await stream.next();
      await call(env.ref, `/publish/${channel}`, { body: 'line1\nline2' });
      expect(await stream.next()).toBe(`message,${channel},line1\nline2`);
    } finally {
      stream.close();
    }
  });

  it('sends psubscribe,<pattern>,1 then pmessage,<pattern>,<channel>,<message>', async () => {
    const prefix = uniqueKey('p');
    const stream = await open(env.ref, `/psubscribe/${encodeURIComponent(`${prefix}.*`)}`);
    try {
      expect(await stream.next()).toBe(`psubscribe,${prefix}.*,1`);
      await call(env.ref, `/publish/${prefix}.a/m1`);
      expect(await stream.next()).toBe(`pmessage,${prefix}.*,${prefix}.a,m1`);
    } finally {
      stream.close();
    }
  });

  it('subscribes an ACL token’s stream as that user, so Redis enforces its channels', async () => {
    const user = uniqueKey('user').replace(':', '-');
    await call(env.ref, '/', { body: ['ACL', 'SETUSER', user, 'on', '>pw', 'resetchannels', '&news.*', '+subscribe'] });
    const token = ((await call(env.ref, `/acl/resttoken/${user}/pw`)).json as { result: string }).result;
    const allowed = await open(env.ref, '/subscribe/news.today', token);
    try {
      expect(await allowed.next()).toBe('subscribe,news.today,1');
    } finally {
      allowed.close();
    }
    const denied = await call(env.ref, '/subscribe/secret', { method: 'POST', token });
    expect(denied.status).toBe(400);
    expect(denied.json).toEqual({ error: expect.stringMatching(/^NOPERM /) });
  });

  it('ends open streams when the service stops', async () => {
    const own = await startTestReference(env.redis);
    const stream = await open(own, `/subscribe/${uniqueKey('ch')}`);
    await stream.next();
    await own.stop();
    await expect(stream.next(3_000)).rejects.toThrow(/ended|closed/);
  });
});
