/** `svc-harness k6 manifest <scenario…>`: a k6-operator TestRun and its ConfigMap, to a file or stdout. */
import { writeFile } from 'node:fs/promises';
import { k6Manifest, type ManifestOptions } from '../../engines/load/k6/k6-manifest.ts';
import { parseLoadSettings } from '../../engines/load/load-settings.ts';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { getDialect } from '../../target/dialects.ts';
import { environmentTargetLine, loadTargetFileSync } from '../../target/read-target.ts';
import { paramTexts, settingValues } from '../load-flags.ts';
import type { ParsedValues } from '../parsed-values.ts';
import { sinkSettings } from '../sink-flags.ts';
import { targetChoice } from '../target-flags.ts';

const text = (values: ParsedValues, flag: string) =>
  typeof values[flag] === 'string' ? (values[flag] as string) : undefined;

/**
 * The kv base URL; from a target, also what its messaging scenarios need (messaging URL, sink.url,
 * dialect), `--sink-url` over the file's sink.url.
 */
function baseUrlOf(values: ParsedValues): {
  readonly baseUrl: string;
  readonly messaging?: Pick<ManifestOptions, 'messagingBaseUrl' | 'sinkUrl' | 'headerPrefix'>;
} {
  const given = text(values, 'base-url');
  const targetFile = text(values, 'target');
  if (given !== undefined && targetFile !== undefined) {
    throw harnessError('SVC_USAGE', 'k6 manifest: give --target FILE or --base-url URL, not both');
  }
  // --sink-url wins over the target file's sink.url (as `load --sink-url` does).
  const sinkFlag = text(values, 'sink-url');
  // Checked as load's --sink-url is: a base URL, with a path prefix or not, and no query.
  if (sinkFlag !== undefined) sinkSettings({ 'sink-url': sinkFlag });
  const sinkUrl = (fromTarget: string | undefined) => {
    const url = sinkFlag ?? fromTarget;
    return url === undefined ? {} : { sinkUrl: url };
  };
  if (given !== undefined) return { baseUrl: given, messaging: sinkUrl(undefined) };
  // The same choice as every command's: the file, else SVC_KV_URL and its company.
  const { files, environment } = targetChoice('k6 manifest', values);
  const target = files[0] === undefined ? environment : loadTargetFileSync(files[0]);
  if (target === undefined) {
    throw harnessError(
      'SVC_USAGE',
      'k6 manifest: give the URL the pods load, with --target FILE, --base-url URL or SVC_KV_URL (one of them)',
    );
  }
  const origin = files[0] === undefined ? 'the environment (SVC_*)' : `the target file ${files[0]}`;
  if (!target.kv) throw harnessError('SVC_CONFIG', `k6 manifest: ${origin} has no kv area`);
  if (files[0] === undefined) process.stderr.write(`${environmentTargetLine('k6 manifest', target)}\n`);
  return {
    baseUrl: target.kv.url,
    messaging: {
      ...(target.messaging && { messagingBaseUrl: target.messaging.url }),
      ...sinkUrl(target.sink?.url),
      headerPrefix: getDialect(target.dialect).headerPrefix,
    },
  };
}

export async function run(values: ParsedValues): Promise<number> {
  const settings = parseLoadSettings({ ...settingValues(values), engine: 'k6' }, paramTexts(values), 'k6 manifest');
  const { baseUrl, messaging } = baseUrlOf(values);
  const manifest = await k6Manifest({
    scenarios: (values._ as string[] | undefined) ?? [],
    parallelism: typeof values.parallelism === 'number' ? values.parallelism : 1,
    baseUrl,
    ...messaging,
    settings,
    thresholds: (values.threshold as string[] | undefined) ?? [],
    ...(text(values, 'name') !== undefined && { name: text(values, 'name') }),
    ...(text(values, 'namespace') !== undefined && { namespace: text(values, 'namespace') }),
    ...(text(values, 'image') !== undefined && { image: text(values, 'image') }),
    ...(text(values, 'token-secret') !== undefined && { tokenSecret: text(values, 'token-secret') }),
    ...(text(values, 'results-claim') !== undefined && { resultsClaim: text(values, 'results-claim') }),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const out = text(values, 'out');
  if (out === undefined) {
    process.stdout.write(manifest);
    return 0;
  }
  await writeFile(out, manifest).catch((error: unknown) => {
    throw harnessError('SVC_USAGE', `k6 manifest: cannot write --out ${out}: ${oneLine(error)}`);
  });
  process.stderr.write(`k6 manifest: wrote ${out}\n`);
  return 0;
}
