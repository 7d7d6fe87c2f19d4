/**
 * docs/configuration.md (its settings part) and .env.example are generated from the configuration
 * schema; a setting added, changed or removed without `npm run config:docs` fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES } from '../src/config.js';
import { COMPOSE_VARIABLES } from '../src/config/unknown-settings.js';
import {
  CONFIGURATION_PAGE,
  ENV_EXAMPLE,
  PROJECT_ROOT,
  renderConfigurationPage,
  renderEnvExample,
} from '../scripts/render-config-docs.js';

const STALE = 'is not what the schema generates: run `npm run config:docs` and commit the result';

describe('configuration documentation', () => {
  it('docs/configuration.md is what the schema generates', async () => {
    const committed = readFileSync(CONFIGURATION_PAGE, 'utf8');
    expect(committed === (await renderConfigurationPage(committed)), `docs/configuration.md ${STALE}`).toBe(
      true,
    );
  });

  it('.env.example is what the schema generates, and sets nothing (every line a comment)', () => {
    const committed = readFileSync(ENV_EXAMPLE, 'utf8');
    expect(committed === renderEnvExample(), `.env.example ${STALE}`).toBe(true);
    expect(committed.split('\n').filter((line) => line !== '' && !line.startsWith('#'))).toEqual([]);
  });

  it('names every setting in both files', () => {
    const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
    const example = readFileSync(ENV_EXAMPLE, 'utf8');
    expect(SETTING_NAMES.filter((name) => !page.includes(`| \`${name}\``))).toEqual([]);
    expect(SETTING_NAMES.filter((name) => !example.includes(`\n# ${name}=`))).toEqual([]);
  });

  it('the variables docker-compose.yml substitutes are settings or listed as its own', () => {
    const compose = readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8');
    const substituted = new Set([...compose.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));
    const own = [...substituted].filter((name) => !(SETTING_NAMES as string[]).includes(name)).sort();
    expect(own).toEqual([...COMPOSE_VARIABLES].sort());
  });
});
