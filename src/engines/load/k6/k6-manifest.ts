/**
 * `svc-harness k6 manifest`: a k6-operator run of the harness's scenarios. Two objects, one YAML
 * stream: a ConfigMap holding the scenarios bundled into one k6 script (k6-entry.ts), and a TestRun
 * (k6.io/v1alpha1, the schema of k6-operator v1.6.0) whose N runners each take an execution segment.
 *
 * What k6-operator does, and so what the manifest does about it (read in k6-operator v1.6.0):
 * - each runner runs `setup()` and `teardown()` itself (setup data is shared only for Grafana Cloud
 *   private load zones), so the script's setup writes under a prefix of its own per runner and its
 *   teardown deletes it;
 * - runners share no output, so each writes `--out json=/results/<pod>.json.gz` on a shared volume
 *   (the pod's name from the downward API, expanded by Kubernetes in the container's command), and
 *   `svc-harness k6 merge` makes one report of them with global percentiles and thresholds;
 * - the token is never in the manifest: the pods read it from a Secret (key `token` for kv,
 *   `messaging-token` for messaging scenarios).
 *
 * A messaging scenario's publishers run in the pods, but its sink runs only in the harness
 * (`svc-harness load`): the bundle's setup hands the target URLs under the target's `sink.url`, which
 * the pods' target must reach, and `k6 merge` has the publishers' side only. Deliveries are accounted
 * only by a harness whose sink receives them, so the merged report's delivery thresholds have no data
 * and fail. The manifest refuses a messaging scenario without a `sink.url`: the target would have
 * nowhere to deliver, and retry into the load it is measured under.
 */
import { stringify } from 'yaml';
import { answerRoom, type Scenario, type ScenarioOptions } from '../../../protocol/scenario.ts';
import { parseThresholds, type Threshold } from '../../../results/threshold.ts';
import { harnessError, oneLine } from '../../../shared/errors.ts';
import type { LoadSettings } from '../load-settings.ts';
import { checkParams } from '../scenario-params.ts';
import { scenarioOptions } from '../scenario-plan.ts';
import { checkScenarioNames, loadScenario, scenarioFile, scenarioNames, scenariosDir } from '../scenario-registry.ts';
import { constantSchedule, rampSchedule } from '../schedule.ts';
import { pinnedK6 } from './k6-binary.ts';
import { bundleEntry } from './k6-entry.ts';
import { type K6ScenarioPlan, k6Options } from './k6-options.ts';
import { k6Lacks } from './k6-support.ts';

export interface ManifestOptions {
  /** @default every scenario k6 can run */
  readonly scenarios?: readonly string[];
  readonly parallelism: number;
  /** The kv base URL the pods load. */
  readonly baseUrl: string;
  /** The messaging base URL, for messaging scenarios (a target file's `messaging.url`). */
  readonly messagingBaseUrl?: string;
  /** The dialect's vendor-header prefix (`Upstash-`). @default 'Svc-' */
  readonly headerPrefix?: string;
  /**
   * The target's `sink.url`: where the pods' target delivers a messaging scenario's messages. It must
   * be reachable from the target; the harness's sink accounts for them only in a `load` run.
   */
  readonly sinkUrl?: string;
  readonly settings: LoadSettings;
  readonly thresholds?: readonly string[];
  /** @default svc-harness */
  readonly name?: string;
  readonly namespace?: string;
  /** @default grafana/k6:<the pinned k6> */
  readonly image?: string;
  /**
   * The runner image is a k6 with the harness's extension (k6-extension.ts): the bundle imports it, so
   * its VUs read answers within the cap. A stock image refuses such a bundle. @default false
   */
  readonly boundedReads?: boolean;
  /** @default svc-harness-target */
  readonly tokenSecret?: string;
  /** @default svc-harness-results */
  readonly resultsClaim?: string;
  /** Told what is left out (a scenario k6 cannot run); the CLI prints it to stderr. */
  readonly log?: (line: string) => void;
}

/** The file name of the script in the ConfigMap (mounted at /test/ in the runner pods). */
export const scriptFile = 'svc-harness.js';

/** Kubernetes object names (RFC 1123 labels); the TestRun's also names its jobs, so it is kept short. */
function checkName(flag: string, value: string, max: number): void {
  if (value.length > max || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value)) {
    throw harnessError(
      'SVC_USAGE',
      `k6 manifest: --${flag} "${value}" is not a Kubernetes name (lower-case letters, digits and "-", at most ${max})`,
    );
  }
}

/** Why the manifest cannot bundle a messaging scenario with these options, or undefined when it can. */
export function manifestLacks(
  scenario: Pick<Scenario, 'area' | 'sink' | 'needsOpenModel'>,
  options: Pick<ManifestOptions, 'messagingBaseUrl' | 'sinkUrl'> & { readonly settings?: Pick<LoadSettings, 'model'> },
): string | undefined {
  if (scenario.needsOpenModel !== undefined && options.settings?.model === 'closed') {
    return `it needs the open model: ${scenario.needsOpenModel}`;
  }
  if (scenario.area !== 'messaging') return undefined;
  if (options.messagingBaseUrl === undefined) {
    return 'it loads the messaging area, and the target gives no messaging URL (--target FILE with a messaging area)';
  }
  if (scenario.sink && options.sinkUrl === undefined) {
    return 'its target delivers to the sink, and the target file gives no sink.url the pods’ target can reach (the sink runs in the harness: docs/load.md, “On k6, and on several machines”)';
  }
  return undefined;
}

export async function k6Manifest(options: ManifestOptions): Promise<string> {
  const name = options.name ?? 'svc-harness';
  checkName('name', name, 40);
  if (options.namespace !== undefined) checkName('namespace', options.namespace, 63);
  const tokenSecret = options.tokenSecret ?? 'svc-harness-target';
  checkName('token-secret', tokenSecret, 253);
  const resultsClaim = options.resultsClaim ?? 'svc-harness-results';
  checkName('results-claim', resultsClaim, 253);
  for (const [what, url] of [
    ['base URL', options.baseUrl],
    ['messaging URL', options.messagingBaseUrl],
    ['sink URL', options.sinkUrl],
  ] as const) {
    if (url !== undefined && !/^https?:\/\/[^/\s]+/.test(url)) {
      throw harnessError('SVC_USAGE', `k6 manifest: the ${what} "${url}" is not an http(s) URL`);
    }
  }
  const cli = parseThresholds(options.thresholds ?? [], 'cli');
  const asked = options.scenarios?.length ? [...options.scenarios] : undefined;
  if (asked) checkScenarioNames(asked, scenariosDir);
  const plans: (K6ScenarioPlan & { file: string; area: Scenario['area']; hasSink: boolean; scenario: Scenario })[] = [];
  for (const scenarioName of asked ?? scenarioNames(scenariosDir)) {
    const file = scenarioFile(scenarioName);
    const scenario = await loadScenario(file);
    const lacks = k6Lacks(scenario) ?? manifestLacks(scenario, options);
    if (lacks !== undefined) {
      if (asked) throw harnessError('SVC_USAGE', `k6 manifest: ${scenarioName} cannot run on k6: ${lacks}`);
      options.log?.(`k6 manifest: ${scenarioName} is left out: ${lacks}`);
      continue;
    }
    let own: Threshold[];
    try {
      own = parseThresholds(scenario.thresholds, 'scenario');
    } catch (error) {
      throw harnessError('SVC_CONFIG', `scenario ${scenarioName}: ${oneLine(error)}`);
    }
    const scenarioSettings = scenarioOptions({ scenario, settings: options.settings });
    const { workers: _workers, ...scenarioOptionsOnly } = scenarioSettings;
    plans.push({
      name: scenarioName,
      file,
      scenario,
      area: scenario.area,
      hasSink: scenario.sink !== undefined,
      model: options.settings.model,
      options: scenarioOptionsOnly,
      ...(options.settings.ramp && { ramp: options.settings.ramp.stages }),
      thresholds: [...own, ...cli],
    });
  }
  // The bundle carries each scenario's parameters in its options (the pods' setup reads them there).
  checkParams(options.settings.params ?? {}, plans, 'k6 manifest');
  const messaging = plans.some((plan) => plan.area === 'messaging');
  const script = await bundleEntry(
    {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      ...(messaging && options.messagingBaseUrl && { messagingBaseUrl: options.messagingBaseUrl.replace(/\/+$/, '') }),
      ...(options.headerPrefix !== undefined && { headerPrefix: options.headerPrefix }),
      timeoutMs: options.settings.timeoutMs,
      scenarios: plans.map((plan) => ({
        name: plan.name,
        options: plan.options,
        area: plan.area,
        ...(plan.model === 'open' && { iterations: plannedArrivals(plan) }),
        ...(plan.hasSink && options.sinkUrl !== undefined && { sinkUrl: options.sinkUrl }),
        thresholds: plan.thresholds.map((threshold) => threshold.text),
        ...answerCap(plan.scenario, plan.options),
      })),
      k6Options: k6Options(plans, options.settings.timeoutMs),
    },
    plans.map((plan) => ({ name: plan.name, file: plan.file })),
    // The runner image is stock k6 unless told: a bundle that imported the extension would not start there.
    { boundedReads: options.boundedReads ?? false },
  );
  const metadata = (objectName: string) => ({
    name: objectName,
    ...(options.namespace !== undefined && { namespace: options.namespace }),
    labels: { 'app.kubernetes.io/managed-by': 'svc-harness' },
  });
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(`${name}-script`),
    data: { [scriptFile]: script },
  };
  const testRun = {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: metadata(name),
    spec: {
      parallelism: options.parallelism,
      script: { configMap: { name: `${name}-script`, file: scriptFile } },
      // `args` is passed as it is (no splitting on spaces); Kubernetes expands $(SVC_K6_POD) from the env below.
      args: ['--out', 'json=/results/$(SVC_K6_POD).json.gz'],
      runner: {
        image: options.image ?? `grafana/k6:${pinnedK6}`,
        env: [
          { name: 'SVC_K6_POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'SVC_K6_TOKEN', valueFrom: { secretKeyRef: { name: tokenSecret, key: 'token' } } },
          ...(messaging
            ? [
                {
                  name: 'SVC_K6_MESSAGING_TOKEN',
                  valueFrom: { secretKeyRef: { name: tokenSecret, key: 'messaging-token' } },
                },
              ]
            : []),
        ],
        volumes: [{ name: 'results', persistentVolumeClaim: { claimName: resultsClaim } }],
        volumeMounts: [{ name: 'results', mountPath: '/results' }],
      },
    },
  };
  const header = [
    `# svc-harness k6 manifest: ${plans.map((plan) => plan.name).join(', ')} on ${options.parallelism} runner(s) against ${options.baseUrl}`,
    `# Before applying: kubectl create secret generic ${tokenSecret} --from-literal=token=…${messaging ? ' --from-literal=messaging-token=…' : ''}, and a ReadWriteMany`,
    `# PersistentVolumeClaim ${resultsClaim}. After the run: copy /results/*.json.gz from it and run`,
    '# `npx svc-harness k6 merge <files…>` for one report with global percentiles and thresholds.',
    ...(messaging && options.sinkUrl !== undefined
      ? [
          `# Messaging scenarios: the target delivers to ${options.sinkUrl}; the harness's sink accounts for deliveries only`,
          '# in `svc-harness load`, so the merged report has the publishers only (its delivery thresholds have no data).',
        ]
      : []),
  ].join('\n');
  return `${header}\n${stringify(configMap, { lineWidth: 0 })}---\n${stringify(testRun, { lineWidth: 0 })}`;
}

/**
 * The pods' cap on one answer: the scenario's largest answer with room, as `withAnswerCap` gives a local
 * run (a target's own `maxAnswerBytes` is not known here); none declared, the script's default.
 */
function answerCap(scenario: Scenario, options: ScenarioOptions): { maxAnswerBytes?: number } {
  const largest = scenario.largestAnswer?.(options);
  return largest === undefined || !Number.isFinite(largest) || largest < 0
    ? {}
    : { maxAnswerBytes: answerRoom(largest) };
}

/** The arrivals the node engine's schedule plans (k6 starts one more at the end; the script sends it nothing). */
function plannedArrivals(plan: K6ScenarioPlan): number {
  return plan.ramp ? rampSchedule(plan.ramp).total : constantSchedule(plan.options.rate, plan.options.durationS).total;
}
