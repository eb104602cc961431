/**
 * Setup of the fast project: starting a child process fails the test, so the fast set stays what its
 * name says (vitest.config.ts picks it by what a file imports; this catches what that misses).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const refuse = (name: string) => () => {
  throw new Error(
    `${name}: a test in the fast project started a child process; add what it calls to vitest.config.ts's slowTest pattern`,
  );
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  Object.assign(childProcess, { [name]: refuse(name) });
}
syncBuiltinESMExports();
