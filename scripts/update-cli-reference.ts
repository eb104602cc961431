// Regenerates the command reference block in docs/cli.md from src/cli/command-table.ts (`npm run readme`).
import { readFileSync, writeFileSync } from 'node:fs';
import { withCliReference } from '../src/cli/cli-reference.ts';

const path = new URL('../docs/cli.md', import.meta.url);
writeFileSync(path, withCliReference(readFileSync(path, 'utf8')));
