/**
 * Runs area B commands: the checks every command passes (size, support, read-only policy, daily
 * limit), then single commands, pipelines and MULTI/EXEC transactions on the backing Redis.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { oneLine } from '../../shared/errors.ts';
import { type CommandPolicy, commandName, transactionCommands } from './command-policy.ts';
import { ExecWriteBehind } from './exec-write-behind.ts';
import type { JsonSupport } from './json/json-emulation.ts';
import type { KvFaultCheck } from './kv-fault-check.ts';
import { dailyLimitError, type KvLimits, maxRequestSizeError } from './kv-limits.ts';
import {
  type Failure,
  failure,
  fromReply,
  type Outcome,
  rejectedOutcome,
  serviceError,
  type TransactionOutcome,
  unavailable,
} from './kv-outcome.ts';
import { type KvSilenceCheck, readOnlyRefusal403 } from './kv-silences.ts';
import type { KvTokens, Principal, RedisUser } from './kv-tokens.ts';
import { multiExec, type SendOptions, sendOptions } from './multi-exec.ts';
import type { RedisClient, RedisConnections } from './redis-connections.ts';
import { withReplyDeadline } from './reply-deadline.ts';
import type { RedisReply } from './reply-format.ts';
import { toWireArgs, type WireArg } from './wire-args.ts';
import { defaultWriteDeadlineMs, withWriteDeadline } from './write-deadline.ts';

/** Whether a /monitor or /subscribe stream may open, and as which Redis user (the default when undefined). */
export type StreamAccess = { readonly refusal: string } | { readonly user: RedisUser | undefined };

export interface KvEngineParts {
  readonly connections: RedisConnections;
  readonly policy: CommandPolicy;
  readonly json: JsonSupport;
  readonly tokens: KvTokens;
  readonly limits: KvLimits;
  readonly fault: KvFaultCheck;
  /** Another legal choice where the spec is silent. @default none */
  readonly silence?: KvSilenceCheck;
  /** How long the commands of one request may wait to be written to Redis. @default 5000 */
  readonly writeDeadlineMs?: number;
  /**
   * How long one request may wait for Redis's replies once written: a Redis that stops answering
   * (paused, swapped out, a network partition) must not hold the request open forever. Below the
   * harness's own 10 s request budget, so a client sees the service's 500, not its own timeout.
   * @default 8000
   */
  readonly replyDeadlineMs?: number;
  /** The `exec-write-behind` fault's cache: INCR transactions answered before they are stored. */
  readonly writeBehind?: ExecWriteBehind;
}

export const defaultReplyDeadlineMs = 8_000;

export class KvEngine {
  readonly #parts: KvEngineParts;
  readonly #deadlineMs: number;
  readonly #replyDeadlineMs: number;

  constructor(parts: KvEngineParts) {
    this.#parts = parts;
    this.#deadlineMs = parts.writeDeadlineMs ?? defaultWriteDeadlineMs;
    if (!(this.#deadlineMs > 0)) throw new RangeError(`writeDeadlineMs must be above 0, not ${this.#deadlineMs}`);
    this.#replyDeadlineMs = parts.replyDeadlineMs ?? defaultReplyDeadlineMs;
    if (!(this.#replyDeadlineMs > 0)) {
      throw new RangeError(`replyDeadlineMs must be above 0, not ${this.#replyDeadlineMs}`);
    }
  }

  /** The text of a request whose replies did not come within the reply deadline (answered 500). */
  get #noReply(): Failure {
    return unavailable(`no reply from Redis within ${this.#replyDeadlineMs} ms`);
  }

  /**
   * Spec "Authentication" 1 for the streams: the Read Only token may open only those whose command
   * Redis flags read-only; an ACL token's stream runs as its user, so Redis enforces its channels.
   * `command` is the stream's Redis command, upper-case (MONITOR, SUBSCRIBE, PSUBSCRIBE).
   */
  streamAccess(command: string, principal: Principal): StreamAccess {
    const args = [Buffer.from(command)];
    if (principal.kind === 'readonly' && !this.#parts.policy.allowsReadOnly(args, command)) {
      return { refusal: this.#silent('read-only-refusal-403') ? readOnlyRefusal403 : noPermission(args).error };
    }
    return { user: this.#redisUser(principal) };
  }

  /**
   * The checks of one command that do not count it: size, support, read-only policy. `name` is
   * `commandName(args)`, decoded once per command by the caller and handed on (pipelines pass here
   * for every command).
   */
  #check(args: readonly Buffer[], name: string, principal: Principal, batch = false): Failure | undefined {
    const { limits, policy, fault } = this.#parts;
    // Spec "Limits": the maximum request size applies per command.
    if (limits.exceedsSize(args) && !fault('size-limit-ignored')) return failure('limit', maxRequestSizeError);
    if (isAclResttoken(args, name)) return principal.kind === 'readonly' ? noPermission(args) : undefined;
    // Spec "Endpoints > Area B" rule 5: unsupported and refused commands.
    const refusal = policy.refusal(args, name);
    // Silence unknown-command-redis-text: Redis's own wording (the text after ERR is not shown).
    if (refusal !== undefined && this.#silent('unknown-command-redis-text'))
      return failure('unsupported', `ERR unknown command '${name.toLowerCase()}', with args beginning with:`);
    if (refusal !== undefined) return failure('unsupported', refusal);
    // Spec "Authentication" 1: the Read Only token runs read commands only (SCAN and KEYS refused).
    if (principal.kind === 'readonly' && !policy.allowsReadOnly(args, name)) {
      if (batch && fault('readonly-writes-in-batches')) return undefined;
      // Silence read-only-refusal-403: another text (the refusal's status and text are not shown).
      if (this.#silent('read-only-refusal-403')) return failure('refused', readOnlyRefusal403);
      return noPermission(args);
    }
    return undefined;
  }

  /** Spec "Limits": the daily request limit applies per command. */
  #countOne(): Failure | undefined {
    if (this.#parts.fault('daily-limit-ignored')) return undefined;
    return this.#parts.limits.tryConsume(1) ? undefined : failure('refused', dailyLimitError);
  }

  async runOne(args: readonly Buffer[], principal: Principal): Promise<Outcome> {
    // Fault exec-write-behind: whatever else comes sees every increment answered (only a kill shows it).
    if (this.#parts.writeBehind !== undefined) await this.#parts.writeBehind.settle();
    const name = commandName(args);
    const refusal = this.#check(args, name, principal) ?? this.#countOne();
    if (refusal !== undefined) return serviceError(refusal);
    return withReplyDeadline(
      this.#replyDeadlineMs,
      async () => this.#executeAlone((await this.#link(principal)).client, args, name),
      () => serviceError(this.#noReply),
    );
  }

  /** Spec "Endpoints > Area B" (/pipeline): in order, not atomic, one failure does not stop the rest. */
  runPipeline(commands: readonly (readonly Buffer[])[], principal: Principal): Promise<Outcome[]> {
    return withReplyDeadline(
      this.#replyDeadlineMs,
      () => this.#pipeline(commands, principal),
      () => commands.map(() => serviceError(this.#noReply)),
    );
  }

  async #pipeline(commands: readonly (readonly Buffer[])[], principal: Principal): Promise<Outcome[]> {
    if (this.#parts.writeBehind !== undefined) await this.#parts.writeBehind.settle();
    const { client } = await this.#link(principal);
    if (this.#silent('pipeline-one-at-a-time')) {
      // Silence pipeline-one-at-a-time: each command is sent when the one before it was answered, so
      // other clients' commands do interleave (spec: "not atomic, other clients' commands may
      // interleave"); one failing command still does not stop the rest.
      const outcomes: Outcome[] = [];
      for (const args of commands) {
        const name = commandName(args);
        const refusal = this.#check(args, name, principal, true) ?? this.#countOne();
        outcomes.push(refusal !== undefined ? serviceError(refusal) : await this.#executeAlone(client, args, name));
      }
      return outcomes;
    }
    if (this.#parts.fault('pipeline-stops-at-error')) {
      const outcomes: Outcome[] = [];
      for (const args of commands) {
        const name = commandName(args);
        const refusal = this.#check(args, name, principal) ?? this.#countOne();
        const outcome = refusal !== undefined ? serviceError(refusal) : await this.#executeAlone(client, args, name);
        outcomes.push(outcome);
        if (outcome.kind === 'error') break;
      }
      return outcomes;
    }
    // Sent together, so the client writes them as one pipeline on the shared connection; being
    // queued at the same moment, they share one write deadline.
    const outcomes = await withWriteDeadline(this.#deadlineMs, (deadline) =>
      Promise.all(
        commands.map((args, index) => {
          const name = commandName(args);
          const refusal = this.#check(args, name, principal, true) ?? this.#countOne();
          return refusal !== undefined
            ? serviceError(refusal)
            : this.#execute(client, args, name, sendOptions(deadline.forCommand(index)));
        }),
      ),
    );
    if (this.#parts.fault('pipeline-long-reordered') && outcomes.length > 100) {
      return [...outcomes.slice(0, 100), ...outcomes.slice(100).reverse()];
    }
    return this.#parts.fault('pipeline-reversed-order') ? outcomes.reverse() : outcomes;
  }

  /** Spec "Endpoints > Area B" (/multi-exec): atomic; the four discard cases answer one error. */
  async runTransaction(commands: readonly (readonly Buffer[])[], principal: Principal): Promise<TransactionOutcome> {
    const { fault } = this.#parts;
    const inPlace = new Map<number, Failure | 'OK'>();
    const toRun: { index: number; args: readonly Buffer[]; name: string }[] = [];
    for (const [index, args] of commands.entries()) {
      const name = commandName(args);
      if (fault('transaction-allows-watch') && transactionCommands.has(name)) {
        inPlace.set(index, 'OK');
        continue;
      }
      const refusal =
        this.#check(args, name, principal, true) ??
        (isAclResttoken(args, name) ? notInTransaction(args, name) : undefined);
      if (refusal === undefined) {
        toRun.push({ index, args, name });
        continue;
      }
      const faultKeepsGoing =
        refusal.errorKind === 'limit'
          ? fault('transaction-size-limit-in-place')
          : refusal.errorKind === 'unsupported' && fault('transaction-ignores-unsupported');
      // Spec "Endpoints > Area B": an unsupported or oversize command discards the whole transaction.
      if (!faultKeepsGoing) return { kind: 'discarded', ...refusal };
      inPlace.set(index, refusal);
    }
    const counted = this.#countTransaction(toRun.length);
    if (counted === undefined) return { kind: 'discarded', ...failure('refused', dailyLimitError) };
    for (const dropped of toRun.splice(counted)) inPlace.set(dropped.index, failure('refused', dailyLimitError));
    // Fault exec-write-behind: INCRs alone are answered from memory and stored up to a second later.
    const { writeBehind } = this.#parts;
    const cachedKeys = writeBehind && inPlace.size === 0 ? ExecWriteBehind.keysOf(commands) : undefined;
    if (writeBehind !== undefined && cachedKeys !== undefined) {
      const values = await writeBehind.increment(cachedKeys);
      return { kind: 'results', results: values.map((value) => ({ kind: 'reply', reply: String(value) })) };
    }
    if (writeBehind !== undefined) await writeBehind.settle();

    const replies = await withReplyDeadline(
      this.#replyDeadlineMs,
      () => this.#runAtomically(toRun, principal),
      () => ({ kind: 'discarded', ...this.#noReply }) as const,
    );
    if (replies.kind === 'discarded') return replies;
    const byIndex = new Map(toRun.map((item, position) => [item.index, replies.results[position] as Outcome]));
    const results = commands.map((_, index): Outcome => {
      const placed = inPlace.get(index);
      if (placed === 'OK') return { kind: 'reply', reply: 'OK' };
      if (placed !== undefined) return serviceError(placed);
      // Every queued command has a reply when EXEC answered; answered as before, a plain 400.
      return byIndex.get(index) ?? serviceError(failure('execution', 'ERR internal error'));
    });
    const failed = results.find((outcome) => outcome.kind === 'error' && outcome.source === 'redis');
    if (failed?.kind === 'error' && fault('transaction-discards-on-runtime-error')) {
      return { kind: 'discarded', ...failure(failed.errorKind, failed.error) };
    }
    return { kind: 'results', results };
  }

  /** Spec "Limits": a transaction over the daily limit is discarded whole; returns how many run. */
  #countTransaction(count: number): number | undefined {
    const { limits, fault } = this.#parts;
    if (fault('daily-limit-ignored')) return count;
    if (limits.tryConsume(count)) return count;
    if (!fault('transaction-daily-limit-in-place')) return undefined;
    const fits = limits.remaining(count);
    limits.tryConsume(fits);
    return fits;
  }

  async #runAtomically(
    toRun: readonly { readonly args: readonly Buffer[]; readonly name: string }[],
    principal: Principal,
  ): Promise<{ kind: 'results'; results: Outcome[] } | ({ kind: 'discarded' } & Failure)> {
    const { fault } = this.#parts;
    const link = await this.#link(principal);
    if (fault('transaction-not-atomic')) {
      const results: Outcome[] = [];
      for (const { args, name } of toRun) {
        results.push(await this.#executeAlone(link.client, args, name));
        await sleep(20);
      }
      return { kind: 'results', results };
    }
    const wire = toRun.map(({ args, name }) => this.#wireArgs(args, name));
    const confirmMulti = principal.kind === 'acl';
    const send = (client: RedisClient, commands: readonly WireArg[][]) =>
      multiExec(client, commands, confirmMulti, this.#deadlineMs);
    const attempt = await link.pool.execute((client) => send(client, wire));
    if (attempt.kind === 'results') return { kind: 'results', results: attempt.results.map(fromReply) };
    // Spec "Endpoints > Area B": a syntax error discards the transaction (Redis answered EXECABORT).
    if (!fault('transaction-runs-syntax-errors'))
      return { kind: 'discarded', ...failure(attempt.errorKind, attempt.error) };
    const valid = wire.filter((_, position) => !attempt.queueErrors.has(position));
    const rerun = await link.pool.execute((client) => send(client, valid));
    const rerunResults = rerun.kind === 'results' ? rerun.results.map(fromReply) : [];
    let next = 0;
    return {
      kind: 'results',
      results: wire.map((_, position) => {
        const queueError = attempt.queueErrors.get(position);
        return queueError !== undefined
          ? ({ kind: 'error', source: 'redis', ...queueError } as const)
          : (rerunResults[next++] ?? serviceError(failure('execution', 'ERR internal error')));
      }),
    };
  }

  /** The Redis user a request runs as: an ACL token's own user, else the default user (undefined). */
  #redisUser(principal: Principal): RedisUser | undefined {
    return principal.kind === 'acl' && !this.#parts.fault('resttoken-full-permissions') ? principal.user : undefined;
  }

  #link(principal: Principal) {
    return this.#parts.connections.user(this.#redisUser(principal));
  }

  /** The arguments sent to Redis: emulated JSON commands become their script form. */
  #wireArgs(args: readonly Buffer[], name: string): WireArg[] {
    const { json } = this.#parts;
    if (json.mode === 'emulated' && name.startsWith('JSON.')) return toWireArgs(json.translate(args, name) ?? args);
    return toWireArgs(args);
  }

  /** One command on its own, with a write deadline of its own. */
  #executeAlone(client: RedisClient, args: readonly Buffer[], name: string): Promise<Outcome> {
    return withWriteDeadline(this.#deadlineMs, (deadline) =>
      this.#execute(client, args, name, sendOptions(deadline.forCommand(0))),
    );
  }

  async #execute(client: RedisClient, args: readonly Buffer[], name: string, options: SendOptions): Promise<Outcome> {
    if (isAclResttoken(args, name)) return this.#aclResttoken(args);
    let reply: RedisReply;
    try {
      reply = (await client.sendCommand(this.#wireArgs(args, name), options)) as RedisReply;
    } catch (error) {
      // Redis's refusal of the command is its own error (400); a lost or unwritten command is a 500.
      return rejectedOutcome(error, this.#deadlineMs);
    }
    // Fault pttl-in-seconds: PTTL counted in seconds (rounded as TTL does), where the protocol says milliseconds.
    // (An integer reply comes as its digits in a string; a bulk string as a Buffer.)
    if (name === 'PTTL' && typeof reply === 'string' && Number(reply) > 0 && this.#parts.fault('pttl-in-seconds'))
      return { kind: 'reply', reply: String(Math.round(Number(reply) / 1000)) };
    // Silence publish-result-zero: a JSON result that counts nothing (spec: /publish answers "JSON result").
    if (name === 'PUBLISH' && this.#silent('publish-result-zero')) return { kind: 'reply', reply: 0 };
    if (name === 'INFO' && Buffer.isBuffer(reply) && wantsSvcSection(args)) {
      reply = Buffer.concat([reply, Buffer.from(`# Svc\r\nsvc_json_commands:${this.#parts.json.mode}\r\n`)]);
    }
    // Silence info-result-lines: /info's text as an array of its lines, another legal result shape.
    if (name === 'INFO' && Buffer.isBuffer(reply) && this.#silent('info-result-lines')) {
      return {
        kind: 'reply',
        reply: reply
          .toString('latin1')
          .split('\r\n')
          .filter(Boolean)
          .map((line) => Buffer.from(line, 'latin1')),
      };
    }
    return { kind: 'reply', reply };
  }

  #silent(name: Parameters<KvSilenceCheck>[0]): boolean {
    return this.#parts.silence?.(name) ?? false;
  }

  /** Spec "Endpoints > Area B" rule 6 and "Authentication" 3: ACL RESTTOKEN <user> <password>. */
  async #aclResttoken(args: readonly Buffer[]): Promise<Outcome> {
    if (args.length !== 4)
      return serviceError(failure('syntax', "ERR wrong number of arguments for 'acl|resttoken' command"));
    const user = { username: args[2]!.toString('utf8'), password: args[3]!.toString('utf8') };
    let known: boolean;
    try {
      known = this.#parts.fault('resttoken-ignores-password') || (await this.#parts.connections.verify(user));
    } catch (error) {
      // Redis could not be asked: a server failure of this command alone, never of its whole pipeline.
      return serviceError(unavailable(oneLine(error)));
    }
    if (!known) {
      const error = `ERR Wrong password or user "${user.username}" does not exist`;
      return { kind: 'error', source: 'redis', errorKind: 'execution', error };
    }
    return { kind: 'reply', reply: Buffer.from(this.#parts.tokens.aclToken(user), 'utf8') };
  }
}

function isAclResttoken(args: readonly Buffer[], name: string): boolean {
  return name === 'ACL' && args[1]?.toString('utf8').toUpperCase() === 'RESTTOKEN';
}

function noPermission(args: readonly Buffer[]): Failure {
  // Wording of the real service (notes, area B), without its "or its subcommand" tail.
  const command = args[0]?.toString('utf8').toLowerCase();
  return failure('refused', `NOPERM this user has no permissions to run the '${command}' command`);
}

function notInTransaction(args: readonly Buffer[], name: string): Failure {
  const command = `${name} ${args[1]?.toString('utf8').toUpperCase()}`;
  return failure('unsupported', `ERR Command is not available: '${command}' in a transaction`);
}

function wantsSvcSection(args: readonly Buffer[]): boolean {
  if (args.length === 1) return true;
  return args.slice(1).some((arg) => /^(all|everything|default|svc)$/i.test(arg.toString('utf8')));
}
