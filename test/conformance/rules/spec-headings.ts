/** The heading paths of the spec (below its title), e.g. `Endpoints > Area B, key-value REST ({kv_url})`. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** In CI the repository is cloned with shared/ beside it. */
export const specPath = fileURLToPath(new URL('../../../../shared/spec/service-spec.md', import.meta.url));

export function headingPaths(markdown: string): Set<string> {
  const paths = new Set<string>();
  const stack: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const match = inFence ? null : /^(#{2,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const depth = (match[1]?.length ?? 2) - 2;
    stack.length = depth;
    stack[depth] = match[2] ?? '';
    paths.add(stack.join(' > '));
  }
  return paths;
}

export function specHeadingPaths(): Set<string> {
  return headingPaths(readFileSync(specPath, 'utf8'));
}
