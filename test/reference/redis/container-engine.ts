/**
 * Test helper: make the Podman engine of container-engine.sh available to this test process when the
 * environment names none yet (CI and developer machines have the script next to the repository).
 * Returns why no engine answers, or undefined when one does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { containerEngineGate } from '../../../src/shared/container-engine-gate.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const engineScript =
  process.env.SVC_CONTAINER_ENGINE_SCRIPT ?? resolve(repoRoot, '../shared/tools/container-engine.sh');

export function ensureContainerEngine(): string | undefined {
  if (containerEngineGate(process.env).kind === 'absent') {
    if (!existsSync(engineScript)) return `no DOCKER_HOST, no Docker socket and no ${engineScript}`;
    const started = run('start');
    if (started.error !== undefined) return started.error;
    for (const match of started.output.matchAll(/^export ([A-Z_]+)=(.*)$/gm)) {
      process.env[match[1]!] = match[2]!;
    }
  }
  const gate = containerEngineGate(process.env);
  if (gate.kind === 'absent') return gate.reason;
  // Only the Podman engine of the script can build the image; another engine must have it already.
  if (process.env.DOCKER_HOST?.includes('container-engine') && existsSync(engineScript)) {
    const image = run('redis-image');
    if (image.error !== undefined) return image.error;
  }
  return undefined;
}

function run(command: string): { output: string; error?: string } {
  const result = spawnSync('bash', [engineScript, command], { encoding: 'utf8', timeout: 110_000 });
  if (result.status === 0) return { output: result.stdout };
  const detail = (result.stderr || result.error?.message || '').trim().split('\n').at(-1);
  return { output: '', error: `container-engine.sh ${command} failed: ${detail}` };
}
