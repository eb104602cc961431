import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCliReference } from '../../src/cli/cli-reference.ts';

const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the command reference (docs/cli.md)', () => {
  it('matches the command table (run `npm run readme` after changing a flag)', () => {
    expect(page).toContain(renderCliReference());
  });

  it('gives the two commands a new user runs', () => {
    expect(readme).toContain('bash scripts/setup.sh && npx svc-harness run');
    expect(readme).toContain('npm test');
  });
});
