import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCliReference } from '../../src/cli/readme-reference.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README command reference', () => {
  it('matches the command table (run `npm run readme` after changing a flag)', () => {
    expect(readme).toContain(renderCliReference());
  });

  it('gives the two commands a new user runs', () => {
    expect(readme).toContain('bash scripts/setup.sh && npx svc-harness run');
    expect(readme).toContain('npm test');
  });
});
