/**
 * The extension of the harness's own modules where it runs: `.ts` in the repository (Node runs the
 * TypeScript directly), `.js` in the published package (built by `npm run build`, since Node will not
 * strip types inside node_modules). Every place that finds a module by its file name (workers, the case
 * and rule files, the scenarios, the k6 adapter, the vitest config) asks here, so both layouts work.
 */
export const sourceExtension: '.ts' | '.js' = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** `name` with the modules' extension: `sourceFile('./sink-thread')` → `./sink-thread.ts` or `.js`. */
export function sourceFile(name: string): string {
  return `${name}${sourceExtension}`;
}
