/**
 * The target model: where an implementation lives and how to authenticate. Every command of the
 * harness reads targets through this module (a target file, or the SVC_* environment variables).
 * The reference service writes the same shape with `svc-harness serve --write-target FILE`.
 */
import { redactUrl, urlSecrets } from '../shared/redact.ts';
import { type DialectName, getDialect, type SignatureScheme, type SignatureSchemeName } from './dialects.ts';

export interface MessagingEndpoint {
  /** Base URL of area A (default region). */
  readonly url: string;
  /** Bearer API token of area A (secret). */
  readonly token: string;
  /** Regional base URLs by region name (`eu-central-1`, `us-east-1`). */
  readonly regions?: Readonly<Record<string, string>>;
  /** Headers sent with every request of the area (a gateway's, a tenant's). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The signing keys, for targets without the real service's GET /v2/keys (secrets). */
  readonly signingKeys?: { readonly current: string; readonly next: string };
  /**
   * How the suites reach operations the spec does not document (creating a waiter, enqueueing,
   * resuming a queue, reading a dead letter, the signing keys): `real-world` for targets with the
   * real service's endpoints, or the path of a module (resolved against the target file's folder)
   * whose default export builds a MessagingAdapter. Without it those cases are skipped.
   */
  readonly adapter?: string;
  /**
   * How the target signs what it sends (deliveries, callbacks): the spec leaves the scheme unshown.
   * @default the dialect's (`jwt-hs256` in `<Prefix>Signature`)
   */
  readonly signature?: { readonly scheme: SignatureSchemeName; readonly header?: string };
}

/** Where the harness's sink listens, and the URL a target must call to reach it. */
export interface SinkSettings {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /**
   * The base URL the target calls (a tunnel's, a CI runner's), which may carry a path prefix
   * (`https://tunnel.example/h/sink`): every URL handed to the target sits under it, and the sink takes
   * requests with or without the prefix (a proxy may strip it). @default http://<host>:<port>
   */
  readonly url?: string;
  /** How long a case waits for a request the target sends later. @default 15 */
  readonly waitSeconds?: number;
  /**
   * Worker threads the sink serves load's inboxes on (0: the harness's own thread).
   * @default 0 for conformance, 1 for load
   */
  readonly threads?: number;
}

export interface KvEndpoint {
  /** Base URL of area B. */
  readonly url: string;
  /** Standard REST token: any command (secret). */
  readonly token: string;
  /** Read Only REST token (secret); cases that need it are skipped without it. */
  readonly readOnlyToken?: string;
  /**
   * Regional base URLs by region name, for implementations that serve the store from several regions
   * (`svc-harness regions`); the same token is used. The spec makes only area A's base URL regional.
   */
  readonly regions?: Readonly<Record<string, string>>;
  /** Headers sent with every request of the area. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Headers sent with the Read Only token besides it (an implementation may want `X-Redis-User: readonly`). */
  readonly readOnlyHeaders?: Readonly<Record<string, string>>;
}

export interface ManagementEndpoint {
  readonly url: string;
  /** HTTP Basic user name (the account email). */
  readonly username: string;
  /** HTTP Basic password (the API key, secret). */
  readonly password: string;
  /** Headers sent with every request of the area. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** How the harness trusts a target's TLS certificate (a staging target with its own CA, or none). */
export interface TargetTls {
  /** A PEM file of the CA to trust besides the system's; resolved against the target file's folder. */
  readonly ca?: string;
  /** Accept any certificate (self-signed staging targets); the report says so. */
  readonly insecure?: boolean;
}

/**
 * The reference's own endpoint for what the spec shows no API for: reset the database password
 * (revokes both tokens), create an ACL user, set the daily request limit.
 */
export interface AdminEndpoint {
  readonly url: string;
  readonly token: string;
}

/** What `--image` without a templated target is told (load, run, soak: one wording). */
export const imageNeedsTemplate =
  '--image needs --target FILE whose target has an "image" template (ports, env, wait) and URLs with {host} and {port:N}';

/** An implementation's container (`--image`): started before the run, stopped after it. */
export interface ImageTemplate {
  /** The image when `--image` names none. */
  readonly name?: string;
  /** Container ports to publish; `{port:N}` in the target's URLs becomes N's mapped port. */
  readonly ports: readonly number[];
  /** The container's environment (the credentials the target's tokens repeat). Secrets. */
  readonly env?: Readonly<Record<string, string>>;
  readonly command?: readonly string[];
  /** A log line to wait for, an HTTP answer, or (neither) the listening ports; `timeout` a duration. */
  readonly wait?: {
    readonly log?: string;
    readonly http?: { readonly port: number; readonly path?: string; readonly status?: number };
    readonly timeout?: string;
  };
}

/**
 * An implementation the soak starts itself (a target file's `process`), so it can kill, restart and
 * pause it; the target's URLs are where it serves once ready.
 */
export interface ProcessTemplate {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the harness's environment; values of secret-looking names are redacted (`processSecrets`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Absolute once read (a target file names it relative to its folder). */
  readonly cwd?: string;
  readonly ready: { readonly url: string } | { readonly port: number; readonly host?: string };
  readonly readyTimeout?: string;
  readonly stopTimeout?: string;
}

export interface Target {
  /** A label for reports. @default 'target' */
  readonly name: string;
  /** Which vendor names the target uses. @default 'svc' */
  readonly dialect: DialectName;
  readonly tls?: TargetTls;
  /** The most one answer of the target may hold before it counts as garbage. @default 100 MiB */
  readonly maxAnswerBytes?: number;
  readonly messaging?: MessagingEndpoint;
  readonly kv?: KvEndpoint;
  readonly management?: ManagementEndpoint;
  readonly admin?: AdminEndpoint;
  /** The sink for area A's deliveries and callbacks; `--sink-*` flags override it. */
  readonly sink?: SinkSettings;
  /** A container to start as this target (`--image`). */
  readonly image?: ImageTemplate;
  /** A process the soak starts as this target. */
  readonly process?: ProcessTemplate;
}

export type TargetArea = 'messaging' | 'kv' | 'management';

/** The signature scheme a target declares, else its dialect's; the header defaults to the dialect's. */
export function signatureSchemeOf(target: Target): SignatureScheme {
  const fallback = getDialect(target.dialect).signature;
  const declared = target.messaging?.signature;
  return declared === undefined ? fallback : { scheme: declared.scheme, header: declared.header ?? fallback.header };
}

/** Every secret a target holds, for redaction of reports and logs: tokens, passwords, and URL credentials. */
export function targetSecrets(target: Target): string[] {
  const secrets = [
    target.messaging?.token,
    target.messaging?.signingKeys?.current,
    target.messaging?.signingKeys?.next,
    target.kv?.token,
    target.kv?.readOnlyToken,
    target.management?.password,
    target.admin?.token,
    ...targetUrls(target).flatMap(urlSecrets),
    ...processSecrets(target.process),
  ];
  return secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** Names of environment variables that hold a secret, as CI systems mask them. */
const secretName = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL/i;

/**
 * The values of a process's environment whose names say they are secret: only those, because the rest
 * (a port, a mode) are ordinary words that redaction would otherwise cut out of every report.
 */
export function processSecrets(template: ProcessTemplate | undefined): string[] {
  return Object.entries(template?.env ?? {})
    .filter(([name]) => secretName.test(name))
    .map(([, value]) => value);
}

function targetUrls(target: Target): string[] {
  return [
    target.messaging?.url,
    ...Object.values(target.messaging?.regions ?? {}),
    target.kv?.url,
    ...Object.values(target.kv?.regions ?? {}),
    target.management?.url,
    target.admin?.url,
  ].filter((url): url is string => url !== undefined);
}

/** The target without its secrets, safe to write into a report. */
export function describeTarget(target: Target): Record<string, unknown> {
  return {
    name: target.name,
    dialect: target.dialect,
    ...(target.tls && { tls: { ca: target.tls.ca ?? null, insecure: target.tls.insecure === true } }),
    ...(target.messaging && {
      messaging: {
        url: redactUrl(target.messaging.url),
        signature: signatureSchemeOf(target),
        regions: Object.fromEntries(
          Object.entries(target.messaging.regions ?? {}).map(([region, url]) => [region, redactUrl(url)]),
        ),
      },
    }),
    ...(target.sink && { sink: { url: target.sink.url ? redactUrl(target.sink.url) : null } }),
    ...(target.kv && {
      kv: {
        url: redactUrl(target.kv.url),
        readOnlyToken: target.kv.readOnlyToken !== undefined,
        ...(target.kv.regions && {
          regions: Object.fromEntries(
            Object.entries(target.kv.regions).map(([region, url]) => [region, redactUrl(url)]),
          ),
        }),
      },
    }),
    ...(target.management && { management: { url: redactUrl(target.management.url) } }),
    ...(target.admin && { admin: { url: redactUrl(target.admin.url) } }),
  };
}
