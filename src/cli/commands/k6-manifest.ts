/** `svc-harness k6 manifest <scenario…>`: a k6-operator TestRun and its ConfigMap, to a file or stdout. */
import { writeFile } from 'node:fs/promises';
import { k6Manifest, type ManifestOptions } from '../../engines/load/k6/k6-manifest.ts';
import { loadSettingsOf } from '../../engines/load/load-settings.ts';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { getDialect } from '../../target/dialects.ts';
import { environmentTargetLine, loadTargetFileSync } from '../../target/read-target.ts';
import type { CommandValues } from '../command-table.ts';
import { sinkSettings } from '../sink-flags.ts';
import { oneTarget, targetChoice } from '../target-flags.ts';

type ManifestValues = CommandValues<'k6 manifest'>;

/**
 * The kv base URL; from a target, also what its messaging scenarios need (messaging URL, sink.url,
 * dialect), `--sink-url` over the file's sink.url.
 */
function baseUrlOf(values: ManifestValues): {
  readonly baseUrl: string;
  readonly messaging?: Pick<ManifestOptions, 'messagingBaseUrl' | 'sinkUrl' | 'headerPrefix'>;
} {
  const given = values['base-url'];
  const targetFile = values.target;
  if (given !== undefined && targetFile !== undefined) {
    throw harnessError('SVC_USAGE', 'k6 manifest: give --target FILE or --base-url URL, not both');
  }
  // --sink-url wins over the target file's sink.url (as `load --sink-url` does).
  const sinkFlag = values['sink-url'];
  // Checked as load's --sink-url is: a base URL, with a path prefix or not, and no query.
  if (sinkFlag !== undefined) sinkSettings({ 'sink-url': sinkFlag });
  const sinkUrl = (fromTarget: string | undefined) => {
    const url = sinkFlag ?? fromTarget;
    return url === undefined ? {} : { sinkUrl: url };
  };
  if (given !== undefined) return { baseUrl: given, messaging: sinkUrl(undefined) };
  // The same choice as every command's: the file, else SVC_KV_URL and its company.
  const { files, environment } = targetChoice('k6 manifest', oneTarget(targetFile));
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

export async function run(values: ManifestValues): Promise<number> {
  const settings = loadSettingsOf({ ...values, engine: ['k6'] }, values.param ?? [], 'k6 manifest');
  const { baseUrl, messaging } = baseUrlOf(values);
  const manifest = await k6Manifest({
    scenarios: values._,
    parallelism: values.parallelism ?? 1,
    baseUrl,
    ...messaging,
    settings,
    thresholds: values.threshold ?? [],
    ...(values.name !== undefined && { name: values.name }),
    ...(values.namespace !== undefined && { namespace: values.namespace }),
    ...(values.image !== undefined && { image: values.image }),
    ...(values['k6-extension'] === true && { boundedReads: true }),
    ...(values['token-secret'] !== undefined && { tokenSecret: values['token-secret'] }),
    ...(values['results-claim'] !== undefined && { resultsClaim: values['results-claim'] }),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const out = values.out;
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
