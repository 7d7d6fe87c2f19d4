/** `npm run config:docs`: writes docs/configuration.md (its settings part) and .env.example from the schema. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONFIGURATION_PAGE,
  ENV_EXAMPLE,
  PROJECT_ROOT,
  renderConfigurationPage,
  renderEnvExample,
} from './render-config-docs.js';

writeFileSync(CONFIGURATION_PAGE, await renderConfigurationPage());
writeFileSync(ENV_EXAMPLE, renderEnvExample());
for (const file of [CONFIGURATION_PAGE, ENV_EXAMPLE])
  console.log(`wrote ${path.relative(PROJECT_ROOT, file)}`);
