/**
 * The target model: where an implementation lives and how to authenticate. Every command of the
 * harness reads targets through this module (a target file, or the SVC_* environment variables).
 * The reference service writes the same shape with `svc-harness serve --write-target FILE`.
 */
import type { DialectName } from './dialects.ts';

export interface MessagingEndpoint {
  /** Base URL of area A (default region). */
  readonly url: string;
  /** Bearer API token of area A (secret). */
  readonly token: string;
  /** Regional base URLs by region name (`eu-central-1`, `us-east-1`). */
  readonly regions?: Readonly<Record<string, string>>;
}

export interface KvEndpoint {
  /** Base URL of area B. */
  readonly url: string;
  /** Standard REST token: any command (secret). */
  readonly token: string;
  /** Read Only REST token (secret); cases that need it are skipped without it. */
  readonly readOnlyToken?: string;
}

export interface ManagementEndpoint {
  readonly url: string;
  /** HTTP Basic user name (the account email). */
  readonly username: string;
  /** HTTP Basic password (the API key, secret). */
  readonly password: string;
}

/**
 * The reference's own endpoint for what the spec shows no API for: reset the database password
 * (revokes both tokens), create an ACL user, set the daily request limit.
 */
export interface AdminEndpoint {
  readonly url: string;
  readonly token: string;
}

export interface Target {
  /** A label for reports. @default 'target' */
  readonly name: string;
  /** Which vendor names the target uses. @default 'svc' */
  readonly dialect: DialectName;
  readonly messaging?: MessagingEndpoint;
  readonly kv?: KvEndpoint;
  readonly management?: ManagementEndpoint;
  readonly admin?: AdminEndpoint;
}

export type TargetArea = 'messaging' | 'kv' | 'management';

/** Every secret a target holds, for redaction of reports and logs. */
export function targetSecrets(target: Target): string[] {
  const secrets = [
    target.messaging?.token,
    target.kv?.token,
    target.kv?.readOnlyToken,
    target.management?.password,
    target.admin?.token,
  ];
  return secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** The target without its secrets, safe to write into a report. */
export function describeTarget(target: Target): Record<string, unknown> {
  return {
    name: target.name,
    dialect: target.dialect,
    ...(target.messaging && { messaging: { url: target.messaging.url, regions: target.messaging.regions ?? {} } }),
    ...(target.kv && { kv: { url: target.kv.url, readOnlyToken: target.kv.readOnlyToken !== undefined } }),
    ...(target.management && { management: { url: target.management.url } }),
    ...(target.admin && { admin: { url: target.admin.url } }),
  };
}
