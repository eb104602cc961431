// Regenerates the command reference block in README.md from src/cli/command-table.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { withCliReference } from '../src/cli/readme-reference.ts';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, withCliReference(readFileSync(path, 'utf8')));
