/** Reads a target from a file or from the SVC_* environment, and validates it before any run starts. */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import { harnessError, oneLine } from '../errors.ts';
import type { Target } from './target.ts';
import { targetSchema } from './target-schema.ts';

const validate = new Ajv({ allErrors: false }).compile(targetSchema);

/** Validates parsed JSON as a target; `origin` names the file or "environment" in the error line. */
export function parseTarget(value: unknown, origin: string): Target {
  if (!validate(value)) {
    const first = validate.errors?.[0];
    const where = first?.instancePath ? first.instancePath.slice(1).replaceAll('/', '.') : 'top level';
    // The URL pattern's own text (a regular expression) would not help a reader.
    const message = first?.keyword === 'pattern' ? 'must be an http:// or https:// URL' : first?.message;
    throw harnessError('SVC_CONFIG', `target ${origin}: ${where} ${message ?? 'is invalid'}`);
  }
  const raw = value as Partial<Target>;
  if (!raw.messaging && !raw.kv && !raw.management) {
    throw harnessError('SVC_CONFIG', `target ${origin}: names no area (messaging, kv or management)`);
  }
  return { ...raw, name: raw.name ?? 'target', dialect: raw.dialect ?? 'svc' } as Target;
}

export async function loadTargetFile(path: string): Promise<Target> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  return parseTargetText(text, path);
}

/** The same, synchronously: a suite file resolves its target while vitest collects it. */
export function loadTargetFileSync(path: string): Target {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  return parseTargetText(text, path);
}

function unreadable(path: string, error: unknown) {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : 'cannot be read';
  return harnessError('SVC_CONFIG', `target file ${path}: ${reason}`);
}

function parseTargetText(text: string, path: string): Target {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw harnessError('SVC_CONFIG', `target file ${path}: not JSON (${oneLine(error)})`);
  }
  return parseTarget(parsed, `file ${path}`);
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
