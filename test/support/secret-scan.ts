/** The check every "no credential leaks" test makes: nothing a run wrote or printed holds a secret. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { secretForms } from '../../src/shared/redact.ts';
import { type Target, targetSecrets } from '../../src/target/target.ts';
import type { CliRun } from './run-cli.ts';

/**
 * No form of any of the target's secrets (as is, URL-encoded, base64) in a file of `reportDir` or in
 * the run's console. Returns the file names it read, for the caller's own checks.
 */
export async function expectNoSecrets(target: Target, reportDir: string, run: CliRun): Promise<string[]> {
  const secrets = targetSecrets(target).flatMap(secretForms);
  // A target with fewer would make the scan prove little: the reference has a token, a read-only token and an admin token.
  expect(secrets.length).toBeGreaterThanOrEqual(3);
  const names = await readdir(reportDir);
  const written = await Promise.all(names.map((name) => readFile(join(reportDir, name), 'utf8')));
  for (const text of [...written, run.stdout, run.stderr]) {
    for (const secret of secrets) expect(text.includes(secret), `a secret leaked: ${secret.slice(0, 3)}…`).toBe(false);
  }
  return names;
}
