/**
 * `svc-harness serve`: starts the reference service, prints its URLs and credentials (showing them
 * is this command's job; nothing else prints secrets), optionally writes a target file, and stops
 * cleanly, with the Redis it started, on SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { RetryBackoff } from '../../reference/messaging/backoff.ts';
import { redactRedisUrl } from '../../reference/redis/redis-url.ts';
import { allFaults, allSilences } from '../../reference/reference-areas.ts';
import { defaultMaxRequestBytes, type MessagingOptions, type StartTokens } from '../../reference/reference-options.ts';
import { type RunningReference, startReference } from '../../reference/reference-service.ts';
import { placesOf } from '../../results/rule.ts';
import { parseDurationMs } from '../../shared/duration.ts';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { collectAfterBurst } from '../../shared/memory-relief.ts';
import { getDialect } from '../../target/dialects.ts';
import { messagingRegions } from '../../target/messaging-regions.ts';
import type { CommandValues } from '../command-table.ts';

type ServeValues = CommandValues<'serve'>;

export async function run(values: ServeValues): Promise<number> {
  if (values['list-faults'] === true) {
    process.stdout.write(renderFaultList());
    return 0;
  }
  if (values['list-silences'] === true) {
    process.stdout.write(renderSilenceList());
    return 0;
  }
  const faults = values.fault ?? [];
  const silences = values.silence ?? [];
  // Whole numbers, their least values and the latency's duration are read by parse-argv (the command table's rows).
  const maxRequestBytes = values['max-request-bytes'];
  const dailyRequestLimit = values['daily-request-limit'];
  const kvLatencyMs = values['kv-latency'];

  const reference = await startReference({
    host: values.host ?? '127.0.0.1',
    ports: {
      kv: values['kv-port'] ?? 0,
      messaging: values['messaging-port'] ?? 0,
      management: values['management-port'] ?? 0,
    },
    messaging: messagingOptions(values),
    ...(values['fault-record'] !== undefined && { faultRecord: values['fault-record'] }),
    adminPort: values['admin-port'] ?? 0,
    ...(values['redis-url'] !== undefined && { redisUrl: values['redis-url'] }),
    faults,
    silences,
    ...(maxRequestBytes !== undefined && { maxRequestBytes }),
    dailyRequestLimit: dailyRequestLimit ?? null,
    ...(kvLatencyMs !== undefined && { kvLatencyMs }),
    dialect: values.dialect ?? 'svc',
    ...startTokens(process.env),
  });
  const stopped = waitForSignal(reference);
  const targetFile = values['write-target'];
  if (targetFile !== undefined) {
    try {
      // Written whole or not at all (a file beside it, renamed over): a reader that sees the file (the
      // soak, once the admin port answers, which is before this line) never reads half of it.
      const partial = `${targetFile}.${process.pid}.partial`;
      await writeFile(partial, `${JSON.stringify(targetJson(reference), null, 2)}\n`, { mode: 0o600 });
      await rename(partial, targetFile);
    } catch (error) {
      await reference.stop();
      throw harnessError('SVC_USAGE', `serve: cannot write --write-target ${targetFile}: ${oneLine(error)}`);
    }
  }
  process.stdout.write(renderBlock(reference, { faults, silences, maxRequestBytes, dailyRequestLimit, targetFile }));
  // Start-up leaves its garbage resident (a just-started `serve` sat at 300 MB): one collection frees it.
  collectAfterBurst();
  return stopped;
}

/**
 * Tokens to start with, from the environment (never flags: a flag's value shows in `ps`): the soak
 * starts `serve` again after a kill, and the new process must answer to the credentials the run holds.
 * SVC_SERVE_KV_TOKEN and SVC_SERVE_KV_READONLY_TOKEN go together; SVC_SERVE_ADMIN_TOKEN alone.
 */
export function startTokens(env: Readonly<Record<string, string | undefined>>): { tokens?: StartTokens } {
  const token = env.SVC_SERVE_KV_TOKEN;
  const readOnlyToken = env.SVC_SERVE_KV_READONLY_TOKEN;
  if ((token === undefined) !== (readOnlyToken === undefined)) {
    throw harnessError(
      'SVC_USAGE',
      'serve: SVC_SERVE_KV_TOKEN and SVC_SERVE_KV_READONLY_TOKEN are set together, or neither',
    );
  }
  const admin = env.SVC_SERVE_ADMIN_TOKEN;
  if ([token, readOnlyToken, admin].includes('')) {
    throw harnessError('SVC_USAGE', 'serve: an SVC_SERVE_*_TOKEN variable is set and empty');
  }
  const tokens: StartTokens = {
    ...(token !== undefined && readOnlyToken !== undefined && { kv: { token, readOnlyToken } }),
    ...(admin !== undefined && { admin }),
  };
  return Object.keys(tokens).length === 0 ? {} : { tokens };
}

/**
 * `--region-latency` and `--retry-backoff`, each checked to one usage line, with `--regions` (a list of
 * known regions, each once: read by parse-argv). Both are compound texts, REGION=DURATION pairs and
 * `real` or a duration, whose durations are read here in the one grammar.
 */
export function messagingOptions(values: ServeValues): MessagingOptions {
  const known: readonly string[] = messagingRegions;
  const list = (text: string) =>
    text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  const regions = values.regions;
  const regionLatencyMs: Record<string, number> = {};
  for (const item of list(values['region-latency'] ?? '')) {
    const [region = '', duration = ''] = item.split('=');
    const ms = parseDurationMs(duration);
    if (!known.includes(region) || ms === undefined) {
      throw harnessError('SVC_USAGE', `serve: --region-latency takes REGION=DURATION (us-east-1=80ms), not "${item}"`);
    }
    if (regions !== undefined && !regions.some((served) => served === region)) {
      throw harnessError('SVC_USAGE', `serve: --region-latency names ${region}, which --regions does not serve`);
    }
    regionLatencyMs[region] = ms;
  }
  const backoffText = values['retry-backoff'];
  let retryBackoff: RetryBackoff | undefined;
  if (backoffText !== undefined && backoffText !== 'real') {
    const ms = parseDurationMs(backoffText);
    if (ms === undefined || ms < 1)
      throw harnessError('SVC_USAGE', `serve: --retry-backoff takes real or a duration (20ms), not "${backoffText}"`);
    retryBackoff = { kind: 'base', ms };
  }
  return {
    ...(regions !== undefined && { regions }),
    regionLatencyMs,
    ...(retryBackoff !== undefined && { retryBackoff }),
  };
}

/** How often `serve` looks whether the npm that started it is still there. */
const parentCheckMs = 1000;

/** A process's command line and its parent's pid, from /proc (Linux); undefined elsewhere or when gone. */
function processInfo(pid: number): { readonly args: string; readonly parent: number } | undefined {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    // The fields after the command's closing parenthesis: state, then the parent's pid.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { args, parent };
  } catch {
    return undefined;
  }
}

/**
 * The npm (`npx`, `npm exec`, `npm run`) that started this process, within two generations (npm may
 * start its bin through a shell), or undefined. A shell that started `serve &` and went on or ended is
 * no such parent: a CI step starts the implementation so and uses it in the next step.
 */
function npmAncestor(): number | undefined {
  let pid = process.ppid;
  for (let generation = 0; generation < 2 && pid > 1; generation += 1) {
    const info = processInfo(pid);
    if (info === undefined) return undefined;
    if (/(^|[/\s])(npm|npx)(-cli\.js)?(\s|$)/.test(info.args)) return pid;
    pid = info.parent;
  }
  return undefined;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Stops on SIGINT or SIGTERM, and when the npm that started it ends: `npx svc-harness serve &` then
 * `kill $!` ends npm, which does not pass the signal on, and the server and its Redis went on with no
 * one to stop them (issue 36). Started from a shell instead (`svc-harness serve &`, a CI step), it runs
 * until it is signalled, whatever the shell does.
 */
function waitForSignal(reference: RunningReference): Promise<number> {
  return new Promise((resolve) => {
    const npm = npmAncestor();
    const stop = (why: string) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      clearInterval(watch);
      process.stdout.write(`\n${why}: stopping the reference service\n`);
      reference.stop().then(
        () => resolve(0),
        () => resolve(0),
      );
    };
    const onSignal = (signal: NodeJS.Signals) => stop(signal);
    const watch = setInterval(() => {
      if (npm !== undefined && !alive(npm)) stop(`the npm that started it (pid ${npm}) ended`);
    }, parentCheckMs);
    watch.unref();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** The target file's content: the same shape `--target` and read-target.ts reads. */
export function targetJson(reference: RunningReference): Record<string, unknown> {
  const { target } = reference;
  const areas = Object.fromEntries(reference.areas.map((area) => [area.name, target[area.name]]));
  return { name: target.name, dialect: target.dialect, ...areas, admin: target.admin };
}

export function renderFaultList(): string {
  return switchTable(
    'Fault switches (each breaks one rule; turn on with --fault NAME):',
    allFaults.map((fault) => [fault.name, fault.rule, fault.description]),
  );
}

export function renderSilenceList(): string {
  return switchTable(
    'Silence switches (each takes another legal choice where the spec is silent, and no case may fail; turn on with --silence NAME):',
    allSilences.map((silence) => [silence.name, placesOf(silence).join(', '), silence.description]),
  );
}

/** A heading, then one row a switch: its name, what it speaks of, what it does, in aligned columns. */
function switchTable(heading: string, rows: readonly (readonly [string, string, string])[]): string {
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  const ruleWidth = Math.max(0, ...rows.map(([, rule]) => rule.length));
  const lines = rows.map(
    ([name, rule, description]) => `  ${name.padEnd(width)}  ${rule.padEnd(ruleWidth)}  ${description}`,
  );
  return [heading, ...lines, ''].join('\n');
}

interface BlockDetails {
  readonly faults: readonly string[];
  readonly silences: readonly string[];
  readonly maxRequestBytes: number | undefined;
  readonly dailyRequestLimit: number | undefined;
  readonly targetFile: string | undefined;
}

const row = (label: string, value: string): [string, string] => [label, value];

function renderBlock(reference: RunningReference, details: BlockDetails): string {
  const { admin } = reference.target;
  const redis =
    reference.redis.origin === 'url'
      ? `${redactRedisUrl(reference.redis.url)} (given)`
      : `${redactRedisUrl(reference.redis.url)} (${reference.redis.origin}, started here; stops with the service)`;
  const rows: [string, string][] = [
    ...reference.areas.flatMap((area): [string, string][] => [
      [area.title, area.url],
      ...regionRows(reference, area.name),
      ...area.describe().map(([label, value]): [string, string] => [`  ${label}`, value]),
    ]),
    ['admin endpoint', admin?.url ?? ''],
    ['  admin token', admin?.token ?? ''],
    ['Redis', redis],
    ['max request size', `${details.maxRequestBytes ?? defaultMaxRequestBytes} bytes`],
    ['daily request limit', details.dailyRequestLimit === undefined ? 'off' : String(details.dailyRequestLimit)],
    ['fault switches', details.faults.length === 0 ? 'none' : details.faults.join(', ')],
    ...(details.silences.length === 0 ? [] : [row('silence switches', details.silences.join(', '))]),
    ['dialect', `${reference.target.dialect} (vendor headers ${getDialect(reference.target.dialect).headerPrefix}…)`],
    ...(details.targetFile === undefined ? [] : [row('target file', details.targetFile)]),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    'svc-harness reference service',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    'Stop with Ctrl-C (SIGINT) or SIGTERM.',
    '',
  ].join('\n');
}

/** Area A's regions beyond its base URL: one row each, with the latency added to it. */
function regionRows(reference: RunningReference, area: string): [string, string][] {
  const regions = area === 'messaging' ? reference.target.messaging?.regions : undefined;
  if (regions === undefined || Object.keys(regions).length < 2) return [];
  return Object.entries(regions).map(([region, url]): [string, string] => [`  region ${region}`, url]);
}
