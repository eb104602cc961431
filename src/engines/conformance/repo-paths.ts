/** Where the harness's own folders are, resolved from this module so any working directory works. */
import { fileURLToPath } from 'node:url';

/** The repository (package) root, with a trailing separator. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** The suites: one folder per area of `<topic>.cases.ts`, beside `rules/` and `support/`. */
export const suitesDir = fileURLToPath(new URL('../../../conformance/', import.meta.url));
/** The rule catalog: one `<area>-rules.ts` per area. */
export const rulesDir = fileURLToPath(new URL('../../../conformance/rules/', import.meta.url));
