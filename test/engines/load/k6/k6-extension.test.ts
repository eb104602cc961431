/**
 * The harness's k6 extension as the harness builds it (k6-extension.ts): the names the script relies on
 * are the ones the Go source registers, the build's module holds a main package and the extension's Go
 * files, its cache folder is apart from the stock k6's and changes with any file built, and `k6 version`
 * tells a k6 with the extension from one without.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cachedK6Path, pinnedK6 } from '../../../../src/engines/load/k6/k6-binary.ts';
import {
  extendedK6Tool,
  extensionDir,
  extensionFiles,
  extensionKey,
  extensionModule,
  hasExtension,
  pastCapHeader,
} from '../../../../src/engines/load/k6/k6-extension.ts';
import { toolModule } from '../../../../src/shared/go-tool.ts';

const goSource = readFileSync(join(extensionDir, 'answercap.go'), 'utf8');

describe("the harness's k6 extension", () => {
  test('the Go source registers the module and sets the header the script reads', () => {
    expect(goSource).toContain(`const ModuleName = ${JSON.stringify(extensionModule)}`);
    expect(goSource).toContain(`const PastCapHeader = ${JSON.stringify(pastCapHeader)}`);
  });

  test("the build's module: a main that runs k6's cmd and blank-imports the extension's package", () => {
    const files = extensionFiles();
    expect(Object.keys(files).sort()).toEqual(['answercap/answercap.go', 'main.go']);
    expect(files['main.go']).toContain('"go.k6.io/k6/v2/cmd"');
    expect(files['main.go']).toContain(`_ "${toolModule}/answercap"`);
    expect(files['main.go']).toContain('cmd.Execute()');
  });

  test("its cache folder is apart from the stock k6's, and any change to a file built is a new one", () => {
    const env = { SVC_HARNESS_CACHE: '/c' };
    const tool = extendedK6Tool(pinnedK6, env);
    expect(tool.target).toMatch(new RegExp(`^/c/k6/v${pinnedK6}-svc-[0-9a-f]{12}/k6$`));
    expect(tool.target).not.toBe(cachedK6Path(env));
    expect(tool).toMatchObject({ module: 'go.k6.io/k6/v2', version: `v${pinnedK6}`, mainPackage: '.' });
    const files = extensionFiles();
    const changed = { ...files, 'answercap/answercap.go': `${files['answercap/answercap.go']}\n// changed\n` };
    expect(extensionKey(pinnedK6, changed)).not.toBe(extensionKey(pinnedK6, files));
    expect(extensionKey('2.3.0', files)).not.toBe(extensionKey(pinnedK6, files));
  });

  test('`k6 version` with the extension listed, and without', () => {
    expect(
      hasExtension(
        'k6 v2.2.0 (go1.26.8, linux/amd64)\nExtensions:\n  svcharness/toolbuild/answercap , k6/x/svc-harness [js]\n',
      ),
    ).toBe(true);
    expect(hasExtension('k6 v2.2.0 (go1.26.8, linux/amd64)\n')).toBe(false);
    expect(
      hasExtension(
        'k6 v1.0.0 (go1.24.1, linux/amd64)\nExtensions:\n  github.com/grafana/xk6-sql v1.0.0, k6/x/sql [js]',
      ),
    ).toBe(false);
  });
});
