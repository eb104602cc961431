/**
 * Spec "Endpoints > Area B" rule 5 (the generic and string groups are supported): a supported command
 * keeps its protocol meaning, and the protocol gives each time its unit by the command's name: seconds
 * for EXPIRE, SET … EX, EXPIREAT and TTL, milliseconds for PEXPIRE, SET … PX, PEXPIREAT and PTTL. One
 * cell per way of setting or reading a time to live × unit (B.commands.time-units); each sets 100 s (or
 * 1000 s from now, for the absolute forms) in its unit and reads it back in the other, so a unit taken
 * for the other is off by a factor of a thousand, far outside the margins for the request's own time.
 */
import { defineCases, show } from '../../src/suite-kit/suite-api.ts';
import { cover, type DimensionValue } from '../rules/dimensions.ts';
import { type BatchCell, runCells } from '../support/cell-batch.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkThat, resultOf } from '../support/kv-checks.ts';
import { createKvClient, type JsonArg, type KvClient } from '../support/kv-client.ts';

const rule = 'B.commands.time-units';
type ExpiryCommand = DimensionValue<'expiry-command'>;
type TimeUnit = DimensionValue<'time-unit'>;

/**
 * How far an absolute time may sit from the harness's clock: a target's clock may be off (a remote
 * host); a unit confusion is off by a factor of a thousand, or puts the time in the past.
 */
const clockSkewS = 120;

interface UnitRow {
  readonly command: ExpiryCommand;
  readonly unit: TimeUnit;
  /** Sets the time (`key` is the case's); returns the commands to send. */
  readonly set: (key: string) => readonly (readonly JsonArg[])[];
  /** Reads it back in the other unit (or the row's own, for the TTL rows). */
  readonly read: (key: string) => readonly JsonArg[];
  /** The range the read must fall in. */
  readonly within: readonly [number, number];
}

const nowS = () => Math.floor(Date.now() / 1000);

const rows: readonly UnitRow[] = [
  {
    command: 'expire',
    unit: 'seconds',
    set: (key) => [
      ['SET', key, 'v'],
      ['EXPIRE', key, '100'],
    ],
    read: (key) => ['PTTL', key],
    within: [90_000, 100_000],
  },
  {
    command: 'expire',
    unit: 'milliseconds',
    set: (key) => [
      ['SET', key, 'v'],
      ['PEXPIRE', key, '100000'],
    ],
    read: (key) => ['TTL', key],
    within: [90, 100],
  },
  {
    command: 'set-option',
    unit: 'seconds',
    set: (key) => [['SET', key, 'v', 'EX', '100']],
    read: (key) => ['PTTL', key],
    within: [90_000, 100_000],
  },
  {
    command: 'set-option',
    unit: 'milliseconds',
    set: (key) => [['SET', key, 'v', 'PX', '100000']],
    read: (key) => ['TTL', key],
    within: [90, 100],
  },
  {
    command: 'expire-at',
    unit: 'seconds',
    set: (key) => [
      ['SET', key, 'v'],
      ['EXPIREAT', key, String(nowS() + 1000)],
    ],
    read: (key) => ['TTL', key],
    within: [1000 - clockSkewS, 1000 + clockSkewS],
  },
  {
    command: 'expire-at',
    unit: 'milliseconds',
    set: (key) => [
      ['SET', key, 'v'],
      ['PEXPIREAT', key, String(Date.now() + 1_000_000)],
    ],
    read: (key) => ['TTL', key],
    within: [1000 - clockSkewS, 1000 + clockSkewS],
  },
  {
    command: 'ttl',
    unit: 'seconds',
    set: (key) => [['SET', key, 'v', 'PX', '100000']],
    read: (key) => ['TTL', key],
    within: [90, 100],
  },
  {
    command: 'ttl',
    unit: 'milliseconds',
    set: (key) => [['SET', key, 'v', 'EX', '100']],
    read: (key) => ['PTTL', key],
    within: [90_000, 100_000],
  },
];

function unitCell(kv: KvClient, key: string, row: UnitRow): BatchCell {
  return {
    name: `${row.command} ${row.unit}`,
    async check() {
      // The setting commands are the cell's own (a refusal of EXPIRE is this rule's failure too).
      const commands = row.set(key);
      for (const command of commands) resultOf(rule, await kv.root(command), String(command[0]));
      const last = commands.at(-1) ?? [];
      const read = row.read(key);
      const value = resultOf(rule, await kv.root(read), String(read[0]));
      const [low, high] = row.within;
      checkThat(
        rule,
        typeof value === 'number' && value >= low && value <= high,
        `${String(last[0])} … ${String(last.at(-1))} then ${read[0]}: ${show(value)}`,
        `${read[0]} between ${low} and ${high}`,
      );
      return undefined;
    },
  };
}

const requirements: Requirements = { '*': ['root-form'] };

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.commands.time-units',
      rules: [rule],
      covers: [cover(rule, {})],
      title: 'Times to live keep their protocol units: seconds, and milliseconds for the P-forms and PX',
      expect:
        'EXPIRE, SET … EX and EXPIREAT set seconds, PEXPIRE, SET … PX and PEXPIREAT milliseconds, as TTL (seconds) and PTTL (milliseconds) read back within the request’s own time.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        await runCells(
          ctx,
          rows.map((row) => unitCell(kv, keys.key(`${row.command}:${row.unit}`), row)),
        );
      },
    },
  ]),
);
