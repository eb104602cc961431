// Regenerates schemas/config.schema.json from src/cli/command-table.ts (part of `npm run readme`), then lets
// biome lay it out as the rest of the repository's JSON.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../src/cli/config-schema.ts';

const path = fileURLToPath(new URL('../schemas/config.schema.json', import.meta.url));
writeFileSync(path, `${JSON.stringify(configSchema(), null, 2)}\n`);
execFileSync('npx', ['biome', 'format', '--write', path], { stdio: 'inherit' });
