/**
 * The README's blocks as the package tests run them, verbatim, and a shell to run a line in: no vitest
 * here, since the package project's global setup (pack-once.ts) runs the README's pack line with it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot, startProcess } from '../support/run-cli.ts';

/** A command line as a shell runs it (bash, no profile), in `cwd`. */
export const shell = (line: string, timeoutMs: number, cwd: string) =>
  startProcess('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', line], { cwd, timeoutMs }).finished;

/** The fenced blocks of a Markdown text: the language after the fence, and the text inside. */
export function fencedBlocks(markdown: string): { readonly language: string; readonly text: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1] ?? '',
    text: match[2] ?? '',
  }));
}

export const readme = () => readFile(join(repoRoot, 'README.md'), 'utf8');

/** A block of a Markdown file, verbatim, found by its language and first line. */
export async function example(language: string, firstLine: string, file = 'README.md'): Promise<string> {
  const found = fencedBlocks(await readFile(join(repoRoot, file), 'utf8')).find(
    (block) => block.language === language && block.text.startsWith(firstLine),
  );
  if (found === undefined) throw new Error(`${file} has no ${language} block starting with ${firstLine}`);
  return found.text;
}

/** The README's first-gate block: each command without its comment, and whether it runs in the clone. */
export async function firstGateLines(): Promise<{ readonly command: string; readonly inClone: boolean }[]> {
  const block = await example('sh', 'npm pack');
  return block
    .trim()
    .split('\n')
    .map((line) => {
      const [command = '', comment = ''] = line.split(/\s+#\s+/);
      return { command: command.trim(), inClone: comment.startsWith('in the clone') };
    });
}
