/** Command arguments as the Redis client writes them: short ASCII as strings, the rest as Buffers, same bytes. */
import { createClient, RESP_TYPES } from '@redis/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireArgs } from '../../../src/reference/kv/wire-args.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import { startTestRedis, uniqueKey } from '../../support/reference-fixture.ts';

const ascii = (length: number) => Buffer.alloc(length, 'a');
const everyByte = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));

/** Arguments at the edges: sizes around the bound, control bytes, UTF-8 text, bytes that are no UTF-8. */
const samples: Readonly<Record<string, Buffer>> = {
  empty: Buffer.alloc(0),
  'short ASCII': Buffer.from('SET'),
  'ASCII control bytes (NUL, CR, LF, DEL)': Buffer.from('a\0b\r\nc\x7f'),
  'ASCII at the size bound (1024 bytes)': ascii(1024),
  'ASCII past the size bound (1025 bytes)': ascii(1025),
  'UTF-8 text': Buffer.from('héllo wörld €', 'utf8'),
  'bytes that are no UTF-8': Buffer.from([0xff, 0xfe, 0x80, 0x41]),
  'every byte value': everyByte,
  'a large binary value': Buffer.concat(Array.from({ length: 64 }, () => everyByte)),
};

describe('toWireArgs', () => {
  it('turns ASCII arguments up to 1024 bytes into strings of the same bytes', () => {
    const args = [Buffer.from('SET'), Buffer.from('key:1'), ascii(1024), Buffer.alloc(0), Buffer.from('a\0\r\n\x7f')];
    const wire = toWireArgs(args);
    expect(wire).toEqual(['SET', 'key:1', 'a'.repeat(1024), '', 'a\0\r\n\x7f']);
    for (const [position, arg] of wire.entries()) {
      expect(Buffer.from(arg as string, 'latin1').equals(args[position]!), `argument ${position}`).toBe(true);
    }
  });

  it('keeps non-ASCII, binary and oversize arguments as the same Buffers', () => {
    const kept = [
      Buffer.from('é', 'utf8'),
      Buffer.from([0x41, 0x80]),
      Buffer.from([0xff]),
      everyByte,
      ascii(1025),
      ascii(1 << 20),
    ];
    const wire = toWireArgs(kept);
    expect(wire).toHaveLength(kept.length);
    for (const [position, arg] of wire.entries()) expect(arg, `argument ${position}`).toBe(kept[position]);
  });

  it('converts each argument on its own, keeping their order', () => {
    const wire = toWireArgs([Buffer.from('SET'), Buffer.from([0xc3, 0xa9]), Buffer.from('v')]);
    expect(wire[0]).toBe('SET');
    expect(Buffer.isBuffer(wire[1])).toBe(true);
    expect(wire[2]).toBe('v');
  });
});

describe('the bytes Redis stores', () => {
  let redis: RedisBacking | undefined;
  let client: ReturnType<typeof createClient> | undefined;
  const bulkAsBuffer = { [RESP_TYPES.BLOB_STRING]: Buffer } as const;

  beforeAll(async () => {
    redis = await startTestRedis();
    client = createClient({ url: redis.url, RESP: 2 });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    client?.destroy();
    await redis?.stop();
  });

  async function storedBytes(key: Buffer): Promise<Buffer> {
    const stored = await client!.sendCommand([Buffer.from('GET'), key], { typeMapping: bulkAsBuffer });
    await client!.sendCommand([Buffer.from('DEL'), key]);
    if (!Buffer.isBuffer(stored)) throw new Error(`GET answered ${String(stored)}, not bytes`);
    return stored;
  }

  /** SET through toWireArgs (key and value), then GET with the original key bytes. */
  async function roundTrip(key: Buffer, value: Buffer): Promise<Buffer> {
    expect(await client!.sendCommand(toWireArgs([Buffer.from('SET'), key, value]))).toBe('OK');
    return storedBytes(key);
  }

  it.each(Object.entries(samples))('%s: the same bytes as sent as a Buffer', async (_name, sample) => {
    const key = Buffer.concat([Buffer.from(uniqueKey('wire')), sample.subarray(0, 64)]);
    const viaWire = await roundTrip(key, sample);
    expect(viaWire.equals(sample)).toBe(true);
    // The same command with every argument a Buffer, as before toWireArgs: Redis stores the same bytes.
    expect(await client!.sendCommand([Buffer.from('SET'), key, sample])).toBe('OK');
    const viaBuffers = await storedBytes(key);
    expect(viaWire.equals(viaBuffers)).toBe(true);
  });

  it('any bytes as key and value come back unchanged', async () => {
    // Half ASCII (sent as strings when short), half any byte values (sent as Buffers), across the bound.
    const bytes = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 1100 }).map((text) => Buffer.from(text, 'latin1')),
      fc.uint8Array({ maxLength: 1100 }).map((array) => Buffer.from(array)),
    );
    await fc.assert(
      fc.asyncProperty(bytes, bytes, async (keyTail, value) => {
        const key = Buffer.concat([Buffer.from(uniqueKey('prop')), keyTail]);
        expect((await roundTrip(key, value)).equals(value)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
