/** Reads a target from a file or from the SVC_* environment, and validates it before any run starts. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import targetSchema from '../../schemas/target.schema.json' with { type: 'json' };
import { didYouMean } from '../shared/did-you-mean.ts';
import { harnessError } from '../shared/errors.ts';
import { lazyValidator, readJsonFile, schemaProblem } from '../shared/json-file.ts';
import { describeTarget, type Target } from './target.ts';

const targetValidator = lazyValidator(targetSchema, { allErrors: true });

/** The keys the target schema allows where `schemaPath` (`#/definitions/kv/additionalProperties`) points. */
function keysAt(schemaPath: string): string[] {
  let node: unknown = targetSchema;
  for (const step of schemaPath.replace(/^#\//, '').split('/').slice(0, -1)) {
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[step] : undefined;
  }
  const properties =
    typeof node === 'object' && node !== null ? (node as { properties?: object }).properties : undefined;
  return properties === undefined ? [] : Object.keys(properties);
}

/** Validates parsed JSON as a target; `origin` names the file or "environment" in the error line. */
export function parseTarget(value: unknown, origin: string): Target {
  const validate = targetValidator();
  if (!validate(value)) {
    // The URL pattern's own text (a regular expression) would not help a reader.
    // A key that is none (`ulr`) explains the required one missing beside it (`url`): it is said first.
    const errors = [...(validate.errors ?? [])].sort(
      (a, b) => Number(b.keyword === 'additionalProperties') - Number(a.keyword === 'additionalProperties'),
    );
    const problem = schemaProblem(errors, (error) => {
      if (error.schemaPath.includes('/propertyNames')) return 'has a header name HTTP does not allow';
      if (error.schemaPath.includes('/signature/properties/header/')) return 'must be an HTTP header name';
      if (error.keyword === 'additionalProperties') {
        const key = String(error.params.additionalProperty);
        return `has "${key}", which is no key there${didYouMean(key, keysAt(error.schemaPath))}`;
      }
      const inHeaders = /headers/i.test(error.schemaPath);
      if (error.keyword === 'pattern')
        return inHeaders ? 'must be printable ASCII' : 'must be an http:// or https:// URL';
      return error.message;
    });
    throw harnessError('SVC_CONFIG', `target ${origin}: ${problem}`);
  }
  const raw = value as Partial<Target>;
  if (!raw.messaging && !raw.kv && !raw.management) {
    throw harnessError('SVC_CONFIG', `target ${origin}: names no area (messaging, kv or management)`);
  }
  return { ...raw, name: raw.name ?? 'target', dialect: raw.dialect ?? 'svc' } as Target;
}

/** Reads and validates a target file; synchronous, so a suite file can resolve its target while collected. */
export function loadTargetFileSync(path: string): Target {
  const parsed = parseTarget(readJsonFile(path, 'target file'), `file ${path}`);
  const target = withProcessFolder(withAdapterPath(parsed, path), path);
  if (target.tls?.ca === undefined) return target;
  // The CA file is named relative to the target file, read here once so a wrong path is one line now.
  const ca = resolve(dirname(path), target.tls.ca);
  try {
    readFileSync(ca);
  } catch {
    throw harnessError('SVC_CONFIG', `target file ${path}: tls.ca ${target.tls.ca} cannot be read`);
  }
  return { ...target, tls: { ...target.tls, ca } };
}

/** An adapter module named relative to the target file, made absolute (and checked) here. */
function withAdapterPath(target: Target, path: string): Target {
  const adapter = target.messaging?.adapter;
  if (adapter === undefined || adapter === 'real-world' || target.messaging === undefined) return target;
  const absolute = resolve(dirname(path), adapter);
  try {
    readFileSync(absolute);
  } catch {
    throw harnessError('SVC_CONFIG', `target file ${path}: messaging.adapter ${adapter} cannot be read`);
  }
  return { ...target, messaging: { ...target.messaging, adapter: absolute } };
}

/**
 * A process's folder named relative to the target file, made absolute; a command with a slash too (a
 * bare name is looked up on PATH when it starts).
 */
function withProcessFolder(target: Target, path: string): Target {
  const template = target.process;
  if (template === undefined) return target;
  const base = dirname(path);
  return {
    ...target,
    process: {
      ...template,
      ...(template.cwd !== undefined && { cwd: resolve(base, template.cwd) }),
      ...(template.command.includes('/') && { command: resolve(base, template.command) }),
    },
  };
}

/** The same reader for async callers: a problem is a rejection rather than a throw. */
export async function loadTargetFile(path: string): Promise<Target> {
  return loadTargetFileSync(path);
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A target from SVC_MESSAGING_URL, SVC_TOKEN, SVC_KV_URL, SVC_KV_TOKEN, SVC_KV_READONLY_TOKEN,
 * SVC_MGMT_URL, SVC_MGMT_USERNAME, SVC_MGMT_PASSWORD (plus SVC_ADMIN_URL, SVC_ADMIN_TOKEN,
 * SVC_DIALECT, SVC_TARGET_NAME); undefined when none of the area URLs is set.
 */
export function targetFromEnv(env: Env = process.env): Target | undefined {
  if (!env.SVC_MESSAGING_URL && !env.SVC_KV_URL && !env.SVC_MGMT_URL) return undefined;
  const raw: Record<string, unknown> = {
    name: env.SVC_TARGET_NAME ?? 'environment',
    dialect: env.SVC_DIALECT ?? 'svc',
  };
  if (env.SVC_MESSAGING_URL) raw.messaging = { url: env.SVC_MESSAGING_URL, token: env.SVC_TOKEN };
  if (env.SVC_KV_URL) {
    raw.kv = {
      url: env.SVC_KV_URL,
      token: env.SVC_KV_TOKEN,
      ...(env.SVC_KV_READONLY_TOKEN && { readOnlyToken: env.SVC_KV_READONLY_TOKEN }),
    };
  }
  if (env.SVC_MGMT_URL) {
    raw.management = { url: env.SVC_MGMT_URL, username: env.SVC_MGMT_USERNAME, password: env.SVC_MGMT_PASSWORD };
  }
  if (env.SVC_ADMIN_URL) raw.admin = { url: env.SVC_ADMIN_URL, token: env.SVC_ADMIN_TOKEN };
  return parseTarget(JSON.parse(JSON.stringify(raw)), 'environment (SVC_*)');
}

/** The SVC_* names targetFromEnv reads, in the order a notice lists them. */
export const targetEnvNames = [
  'SVC_MESSAGING_URL',
  'SVC_TOKEN',
  'SVC_KV_URL',
  'SVC_KV_TOKEN',
  'SVC_KV_READONLY_TOKEN',
  'SVC_MGMT_URL',
  'SVC_MGMT_USERNAME',
  'SVC_MGMT_PASSWORD',
  'SVC_ADMIN_URL',
  'SVC_ADMIN_TOKEN',
  'SVC_DIALECT',
  'SVC_TARGET_NAME',
] as const;

/** Where a command's target comes from: its files, the environment, or neither (the embedded reference). */
export interface TargetChoice {
  readonly files: readonly string[];
  /** The SVC_* target, when no file is given and the environment names an area URL. */
  readonly environment?: Target;
  /** One line for stderr when both were given: the file wins, and the variables it overrides are named. */
  readonly notice?: string;
}

/**
 * Files win over the environment: a file is the more deliberate choice (named on this command line),
 * and a CI job's environment may carry SVC_* for another step. Either way the run says which it used.
 * The environment is read (and validated) only when it is used.
 */
export function chooseTargets(command: string, files: readonly string[], env: Env = process.env): TargetChoice {
  const environment = files.length === 0 ? targetFromEnv(env) : undefined;
  if (files.length === 0 || (!env.SVC_MESSAGING_URL && !env.SVC_KV_URL && !env.SVC_MGMT_URL)) {
    return { files, ...(environment && { environment }) };
  }
  const set = targetEnvNames.filter((name) => env[name] !== undefined && env[name] !== '');
  return {
    files,
    notice: `${command}: --target ${files.join(', ')} wins over the environment's target; ignored: ${set.join(', ')}`,
  };
}

/**
 * The line a run tells when it uses the environment's target: its name and URLs (no secret), so a CI
 * log shows which implementation the gate judged. Told once the run's checks passed, so bad input
 * stays one line.
 */
export function environmentTargetLine(command: string, target: Target): string {
  const described = describeTarget(target);
  const urls = (['messaging', 'kv', 'management'] as const).flatMap((area) => {
    const entry = described[area] as { readonly url?: string } | undefined;
    return entry?.url === undefined ? [] : [`${area} ${entry.url}`];
  });
  return `${command}: target ${target.name} from the environment (SVC_*): ${urls.join(', ')}`;
}
