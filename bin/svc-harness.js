#!/usr/bin/env node
// The bin is only a version gate and a call: the CLI lives in src/cli. In the repository Node runs its
// TypeScript directly (type stripping); the published package ships it built into dist/, since Node
// strips no types inside node_modules (scripts/build-package.ts).
import { existsSync } from 'node:fs';
import module from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `svc-harness: Node.js ${process.versions.node} is too old; it needs 22.19 or newer [SVC_USAGE]\n`,
  );
  process.exit(2);
}
// Every start compiles the CLI's few hundred modules again; V8's code cache on disk (in the system's
// temporary folder, keyed by each file's content) halves a short command's CPU: 0.66 s to 0.28 s for
// `rules`. TypeScript's tsc turns it on the same way. The tests start the CLI about a hundred times.
module.enableCompileCache?.();
// The repository runs src/ (TypeScript), the package dist/ (built). A command that starts itself again
// under another allocator setting does so first, before the CLI's modules load.
const inRepository = existsSync(new URL('../src/cli/main.ts', import.meta.url));
const entry = (name) => (inRepository ? `../src/cli/${name}.ts` : `../dist/src/cli/${name}.js`);
const { prepareProcess } = await import(entry('prepare-process'));
await prepareProcess(process.argv.slice(2));
const { runCli } = await import(entry('main'));
const code = await runCli(process.argv.slice(2));
// Exit explicitly: a command that finished must never hang on a leftover socket or timer. But first let
// what it wrote reach a pipe: stdout to a pipe may be asynchronous, and exiting at once cut a long
// `rules --coverage | tail` at 64 KiB. An empty write's callback runs once everything before it is out.
const flushed = (stream) => new Promise((resolve) => stream.write('', resolve));
await Promise.race([
  Promise.all([flushed(process.stdout), flushed(process.stderr)]),
  new Promise((r) => setTimeout(r, 5000)),
]);
process.exit(code);
