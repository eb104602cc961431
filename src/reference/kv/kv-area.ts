/**
 * Area B assembled from its parts, in the one order they depend on each other: the Redis connections,
 * the backing Redis's `COMMAND` metadata (JSON support and the command policy both read it), tokens,
 * limits, the engine and the answers. The reference service, the engine benchmark and the tests that
 * need the engine itself all start area B here, so they run what the reference runs.
 */
import { parseCommandReply } from '../../protocol/kv/command-reply.ts';
import type { Dialect } from '../../target/dialects.ts';
import { databaseOf } from '../redis/redis-url.ts';
import { CommandPolicy } from './command-policy.ts';
import { type CounterStore, ExecWriteBehind } from './exec-write-behind.ts';
import { jsonSupportFrom } from './json/json-emulation.ts';
import { KvAnswers } from './kv-answer.ts';
import { KvEngine } from './kv-engine.ts';
import type { KvFaultCheck } from './kv-fault-check.ts';
import { KvLimits } from './kv-limits.ts';
import type { KvPluginOptions } from './kv-plugin.ts';
import { type KvSilenceCheck, noSilence } from './kv-silences.ts';
import { KvStreams } from './kv-streams.ts';
import { type DatabaseTokens, KvTokens } from './kv-tokens.ts';
import { type RedisClient, RedisConnections } from './redis-connections.ts';

export interface KvAreaOptions {
  readonly redisUrl: string;
  /** @default no fault switched on */
  readonly fault?: KvFaultCheck;
  /** Another legal choice where the spec is silent. @default none: the notes' choices */
  readonly silence?: KvSilenceCheck;
  readonly maxRequestBytes: number;
  /** Commands per UTC day. @default null (off) */
  readonly dailyRequestLimit?: number | null;
  /** How long the commands of one request may wait to be written to Redis. @default 5000 */
  readonly writeDeadlineMs?: number;
  /** How long a request waits for Redis's replies before answering 500. @default 8000 */
  readonly replyDeadlineMs?: number;
  /** Bytes an event stream may hold unsent before its slow client is dropped. @default 32 MiB */
  readonly streamBufferBytes?: number;
  /** The vendor header names the service answers to. @default the spec's (`Svc-`) */
  readonly dialect?: Dialect;
  /** The database's tokens to start with. @default random */
  readonly tokens?: DatabaseTokens;
  /** Where `exec-write-behind` appends its record of increments. */
  readonly faultRecord?: string;
}

export interface KvArea {
  /** The admin routes reset tokens and limits and manage ACL users on these. */
  readonly connections: RedisConnections;
  readonly tokens: KvTokens;
  readonly limits: KvLimits;
  readonly engine: KvEngine;
  /** What `kvPlugin` is registered with. */
  readonly plugin: KvPluginOptions;
  /** Ends the event streams, then the Redis connections. */
  close(): Promise<void>;
}

/** The counters of `exec-write-behind` on the default user's connection. */
function redisCounters(client: RedisClient): CounterStore {
  return {
    async read(key) {
      const reply = await client.sendCommand(['GET', key]);
      return reply === null ? 0 : Number(String(reply));
    },
    async add(increments) {
      await Promise.all([...increments].map(([key, count]) => client.sendCommand(['INCRBY', key, String(count)])));
    },
  };
}

/** No switch on: the reference as the spec describes it. */
const noFault: KvFaultCheck = () => false;

export async function startKvArea(options: KvAreaOptions): Promise<KvArea> {
  const fault: KvFaultCheck = options.fault ?? noFault;
  const silence: KvSilenceCheck = options.silence ?? noSilence;
  const connections = await RedisConnections.open(options.redisUrl);
  try {
    const { client } = await connections.user(undefined);
    // One COMMAND round trip at start-up: JSON support and the read-only policy are both read from it.
    const commands = parseCommandReply(await client.sendCommand(['COMMAND']));
    const json = jsonSupportFrom(commands);
    const policy = new CommandPolicy(commands, json, fault);
    const tokens = new KvTokens(fault('reset-keeps-tokens'), options.tokens);
    const limits = new KvLimits(options.maxRequestBytes, options.dailyRequestLimit ?? null);
    const { writeDeadlineMs, replyDeadlineMs } = options;
    const writeBehind = fault('exec-write-behind')
      ? new ExecWriteBehind(redisCounters(client), options.faultRecord, (line) => process.stderr.write(`${line}\n`))
      : undefined;
    const engine = new KvEngine({
      ...(writeBehind !== undefined && { writeBehind }),
      connections,
      policy,
      json,
      tokens,
      limits,
      fault,
      silence,
      writeDeadlineMs,
      replyDeadlineMs,
    });
    const streams = new KvStreams(connections, fault, options.streamBufferBytes, databaseOf(options.redisUrl), silence);
    const answers = new KvAnswers(fault, silence);
    return {
      connections,
      tokens,
      limits,
      engine,
      plugin: { engine, answers, tokens, streams, fault, silence, dialect: options.dialect },
      async close() {
        try {
          await writeBehind?.close();
          streams.closeAll();
        } finally {
          await connections.close();
        }
      },
    };
  } catch (error) {
    await connections.close();
    throw error;
  }
}
