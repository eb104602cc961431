/**
 * `--image NAME[:TAG]`: the target files with an `image` template get their container started first
 * (src/engines/image/image-target.ts) and are handed to the run resolved; the containers are stopped
 * and removed when the run ends, however it ends. Called inside withInterrupts, so a Ctrl-C while a
 * container starts ends the run (and stops the container) rather than the process.
 */
import type { ImageTarget } from '../engines/image/image-target.ts';
import { harnessError } from '../shared/errors.ts';
import { loadTargetFileSync } from '../target/read-target.ts';
import { imageNeedsTemplate } from '../target/target.ts';

export function imageFlag(values: { readonly image?: string }): string | undefined {
  const image = values.image;
  if (image === undefined) return undefined;
  if (!/^[a-z0-9][a-z0-9._\-/:@]*$/i.test(image)) {
    throw harnessError('SVC_USAGE', `--image takes an image name NAME[:TAG], not ${JSON.stringify(image)}`);
  }
  return image;
}

export async function withImageTargets<T>(
  image: string | undefined,
  files: readonly string[],
  work: (files: readonly string[]) => Promise<T>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<T> {
  const templated = files.filter((file) => loadTargetFileSync(file).image !== undefined);
  if (image !== undefined && templated.length === 0) {
    throw harnessError('SVC_USAGE', imageNeedsTemplate);
  }
  if (templated.length === 0) return await work(files);
  // Loaded on use: testcontainers costs every other run a fifth of a second and 30 MB to import.
  const { startImageTarget } = await import('../engines/image/image-target.ts');
  const started = new Map<string, ImageTarget>();
  try {
    for (const file of templated) {
      const container = await startImageTarget(file, image, { log });
      started.set(file, container);
      log(`image: ${container.image} started for ${file}; it is stopped and removed when the run ends`);
    }
    return await work(files.map((file) => started.get(file)?.targetPath ?? file));
  } finally {
    for (const container of started.values()) await container.stop();
  }
}
