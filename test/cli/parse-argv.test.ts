import { describe, expect, test } from 'vitest';
import { parseArgv } from '../../src/cli/parse-argv.ts';
import { harnessErrorMessage } from '../support/harness-error.ts';

const usageError = (run: () => unknown) => harnessErrorMessage('SVC_USAGE', run);

describe('parseArgv', () => {
  test('no arguments, help and --help give help', () => {
    expect(parseArgv([])).toEqual({ kind: 'help' });
    expect(parseArgv(['--help'])).toEqual({ kind: 'help' });
    expect(parseArgv(['help', 'conformance'])).toEqual({ kind: 'help', command: 'conformance' });
    expect(parseArgv(['rules', '--json', '-h'])).toEqual({ kind: 'help', command: 'rules' });
  });

  test('--version', () => {
    expect(parseArgv(['--version'])).toEqual({ kind: 'version' });
  });

  test('conformance flags: repeatable --target and --fault, strings, the areas a list', () => {
    const parsed = parseArgv([
      'conformance',
      '--target',
      'a.json',
      '--target=b.json',
      '--area',
      'kv',
      '--rules',
      'B.multi-exec.*',
      '--report-dir',
      'out',
      '--expectations',
      'e.json',
    ]);
    expect(parsed).toEqual({
      kind: 'run',
      command: 'conformance',
      values: {
        target: ['a.json', 'b.json'],
        area: ['kv'],
        rules: 'B.multi-exec.*',
        'report-dir': 'out',
        expectations: 'e.json',
      },
    });
    expect(parseArgv(['conformance', '--fault', 'x', '--fault', 'y'])).toMatchObject({ values: { fault: ['x', 'y'] } });
  });

  test('rules flags', () => {
    expect(parseArgv(['rules', '--area', 'kv', '--json'])).toEqual({
      kind: 'run',
      command: 'rules',
      values: { area: ['kv'], json: true },
    });
  });

  test('numbers are parsed and checked', () => {
    expect(parseArgv(['serve', '--kv-port', '8080'])).toMatchObject({ values: { 'kv-port': 8080 } });
    expect(usageError(() => parseArgv(['serve', '--kv-port', 'x']))).toBe(
      'serve: --kv-port needs a non-negative number, got "x"',
    );
    expect(usageError(() => parseArgv(['serve', '--kv-port=-1']))).toContain('non-negative');
    // node:util's own text ("ambiguous … use '--kv-port=-XYZ'") is not the harness's line (issue 36).
    expect(usageError(() => parseArgv(['serve', '--kv-port', '-1']))).toBe(
      'serve: --kv-port "-1": a value cannot start with a dash (no value of these flags is negative)',
    );
  });

  test('flags marked integer take whole numbers only, and min sets the least value', () => {
    expect(usageError(() => parseArgv(['serve', '--kv-port', '1.5']))).toBe(
      'serve: --kv-port needs a whole number, got "1.5"',
    );
    expect(usageError(() => parseArgv(['serve', '--max-request-bytes', '0']))).toBe(
      'serve: --max-request-bytes must be at least 1, got "0"',
    );
    expect(parseArgv(['serve', '--daily-request-limit', '0'])).toMatchObject({ values: { 'daily-request-limit': 0 } });
  });

  test('each flag is read once, by its kind: durations in ms, lists as arrays, closed sets checked', () => {
    expect(parseArgv(['conformance', '--timeout', '2s', '--area', 'kv,messaging,kv', '--reporter', 'json'])).toEqual({
      kind: 'run',
      command: 'conformance',
      values: { timeout: 2000, area: ['kv', 'messaging'], reporter: ['json'] },
    });
    expect(
      parseArgv([
        'load',
        '--engine',
        'node,k6',
        '--batch',
        '1,10',
        '--rate',
        '2.5',
        '--warmup',
        '0',
        '--duration',
        '1m30s',
      ]),
    ).toMatchObject({
      values: { engine: ['node', 'k6'], batch: [1, 10], rate: 2.5, warmup: 0, duration: 90_000, _: [] },
    });
    expect(parseArgv(['serve', '--regions', 'us-east-1', '--kv-latency', '4ms'])).toMatchObject({
      values: { regions: ['us-east-1'], 'kv-latency': 4 },
    });
    expect(usageError(() => parseArgv(['load', '--duration', 'soon']))).toBe(
      'load: --duration "soon" is not a duration (500ms, 10s, 2m, 1h, 1m30s)',
    );
    expect(usageError(() => parseArgv(['run', '--timeout', '0s']))).toBe(
      'run: --timeout "0s" is not a duration above zero',
    );
    expect(usageError(() => parseArgv(['conformance', '--timeout', 'x']))).toBe(
      'conformance: --timeout takes a duration (2s), not "x"',
    );
    expect(usageError(() => parseArgv(['regions', '--duration', '500ms']))).toBe(
      'regions: --duration takes a duration of 1s or more (10s, 1m30s), not "500ms"',
    );
    expect(usageError(() => parseArgv(['conformance', '--sink-wait', '2h']))).toBe(
      'conformance: --sink-wait takes a duration up to 1 hour (15s, 2m, 1m30s, 1h), not "2h"',
    );
    expect(usageError(() => parseArgv(['load', '--engine', 'node,node']))).toBe(
      'load: --engine "node,node" is not node, node-undici, k6 or a list of them (node,k6)',
    );
    expect(usageError(() => parseArgv(['load', '--connections', '0']))).toBe(
      'load: --connections "0" is not a whole number above zero',
    );
    expect(usageError(() => parseArgv(['rules', '--area', 'queues']))).toBe(
      'rules: unknown area "queues" (areas: kv, messaging, management)',
    );
    expect(usageError(() => parseArgv(['serve', '--regions', ',']))).toBe('serve: --regions needs at least one region');
    expect(usageError(() => parseArgv(['load', '--model', 'half']))).toBe('load: --model must be one of open, closed');
    expect(usageError(() => parseArgv(['load', '--sink-port', '70000']))).toBe(
      'load: --sink-port must be at most 65535, got "70000"',
    );
  });

  test('unknown commands, unknown flags, missing values and positionals are one usage line', () => {
    expect(usageError(() => parseArgv(['nope']))).toBe(
      'unknown command "nope" (commands: serve, conformance, load, soak, run, regions, compare, k6 install, k6 merge, k6 manifest, rules)',
    );
    for (const argv of [
      ['conformance', '--bogus'],
      ['conformance', '--target'],
      ['rules', 'extra'],
      ['rules', '--json=1'],
    ]) {
      const message = usageError(() => parseArgv(argv));
      expect(message).not.toContain('\n');
      expect(message.startsWith(`${argv[0]}: `)).toBe(true);
    }
  });

  test('an unknown flag or command names the closest one, or the commands that take the flag, in one line', () => {
    const tail = (command: string) => ` (svc-harness ${command} --help lists its flags)`;
    expect(usageError(() => parseArgv(['load', '--duraton', '3s']))).toBe(
      `load: unknown flag --duraton; did you mean --duration?${tail('load')}`,
    );
    expect(usageError(() => parseArgv(['conformance', '--targt=a.json']))).toBe(
      `conformance: unknown flag --targt; did you mean --target?${tail('conformance')}`,
    );
    expect(usageError(() => parseArgv(['load', '--sink-wiat', '3s']))).toBe(
      `load: unknown flag --sink-wiat; did you mean --sink-wait, a flag of conformance, run, not of load?${tail('load')}`,
    );
    expect(usageError(() => parseArgv(['conformance', '--rate', '5']))).toBe(
      `conformance: unknown flag --rate; --rate is a flag of load, soak, k6 manifest${tail('conformance')}`,
    );
    expect(usageError(() => parseArgv(['load', '--zzzzzzzz']))).toBe(`load: unknown flag --zzzzzzzz${tail('load')}`);
    expect(usageError(() => parseArgv(['run', '-x']))).toBe(`run: unknown flag -x${tail('run')}`);
    expect(usageError(() => parseArgv(['lod']))).toBe(
      'unknown command "lod"; did you mean load? (commands: serve, conformance, load, soak, run, regions, compare, k6 install, k6 merge, k6 manifest, rules)',
    );
  });

  test('a one-value flag given twice is a usage line (load, run, k6 manifest take one target); conformance takes several', () => {
    for (const command of [['load'], ['run'], ['k6', 'manifest']]) {
      expect(usageError(() => parseArgv([...command, '--target', 'a.json', '--target=b.json']))).toBe(
        `${command.join(' ')}: --target given more than once; it takes one value (conformance takes several targets)`,
      );
    }
    expect(usageError(() => parseArgv(['load', '--rate', '5', '--rate', '6']))).toBe(
      'load: --rate given more than once; it takes one value',
    );
    expect(parseArgv(['conformance', '--target', 'a', '--target', 'b'])).toMatchObject({
      values: { target: ['a', 'b'] },
    });
    expect(parseArgv(['rules', '--json', '--json'])).toMatchObject({ values: { json: true } });
  });

  test('two-word commands: `k6 merge` takes its own flags and positionals; `k6` alone or unknown is one line', () => {
    expect(parseArgv(['k6', 'merge', 'a.json', 'b.json.gz', '--threshold', 'http_reqs:count<5'])).toEqual({
      kind: 'run',
      command: 'k6 merge',
      values: { _: ['a.json', 'b.json.gz'], threshold: ['http_reqs:count<5'] },
    });
    expect(parseArgv(['k6', 'manifest', 'command', '--parallelism', '3'])).toMatchObject({
      command: 'k6 manifest',
      values: { _: ['command'], parallelism: 3 },
    });
    expect(parseArgv(['help', 'k6', 'merge'])).toEqual({ kind: 'help', command: 'k6 merge' });
    expect(parseArgv(['k6', 'merge', '--help'])).toEqual({ kind: 'help', command: 'k6 merge' });
    expect(usageError(() => parseArgv(['k6']))).toBe('k6: which one? (k6 install, k6 merge, k6 manifest)');
    expect(usageError(() => parseArgv(['k6', 'nosuch']))).toBe(
      'unknown command "k6 nosuch" (commands: k6 install, k6 merge, k6 manifest)',
    );
    expect(usageError(() => parseArgv(['k6', 'install', 'extra']))).toMatch(/^k6 install: /);
  });
});
