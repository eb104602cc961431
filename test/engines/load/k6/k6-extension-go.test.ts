/**
 * The extension's own Go tests (src/engines/load/k6/extension/answercap_test.go: the cut on a real
 * server on loopback), run with `go test` in a module made as the harness makes its k6 build's (k6 from
 * the Go module proxy). Skipped where Go is missing, as the build is.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { pinnedK6 } from '../../../../src/engines/load/k6/k6-binary.ts';
import { extensionDir } from '../../../../src/engines/load/k6/k6-extension.ts';
import { goBinary, toolModule } from '../../../../src/shared/go-tool.ts';

const run = promisify(execFile);
const go = goBinary(process.env);
const module = mkdtempSync(join(tmpdir(), 'svc-k6-extension-go-'));
afterAll(() => rmSync(module, { recursive: true, force: true }));

describe("the extension's Go tests", () => {
  test.skipIf(go === undefined)(
    'go test: answers cut at the cap, refused at their length, bodiless ones untouched, a target’s own mark removed',
    async () => {
      writeFileSync(join(module, 'go.mod'), `module ${toolModule}\n\ngo 1.24\n\nrequire go.k6.io/k6/v2 v${pinnedK6}\n`);
      mkdirSync(join(module, 'answercap'));
      const files = readdirSync(extensionDir).filter((name) => name.endsWith('.go'));
      expect(files).toContain('answercap_test.go');
      for (const name of files) cpSync(join(extensionDir, name), join(module, 'answercap', name));
      const { stdout } = await run(go ?? 'go', ['test', '-count=1', './answercap/'], {
        cwd: module,
        env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'local' },
        timeout: 280_000,
      });
      expect(stdout).toMatch(/^ok\s+svcharness\/toolbuild\/answercap\b/m);
    },
    300_000,
  );
});
