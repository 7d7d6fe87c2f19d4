import path from 'node:path';
import { z } from 'zod';
import { bool, section, setting } from './setting.js';
import { PROJECT_ROOT } from './project-root.js';

export const operationsSettings = section(
  'Operations (the MCP tools)',
  z.object({
    dir: setting('OPERATIONS_DIR', z.string().min(1).default(path.join(PROJECT_ROOT, 'operations')), {
      description: 'Folder of curated operations: one tool per `.graphql` file, settings in `tools.json`.',
      shownDefault: "the project's `operations/`",
    }),
    watch: setting('OPERATIONS_WATCH', bool().optional(), {
      description:
        'Watch `OPERATIONS_DIR` and reload the catalogue when a file changes (`true` or `false`; a broken change is logged with file:line and the running catalogue kept).',
      shownDefault: '`true` when `NODE_ENV=development`',
      see: 'authoring-tools.md#hot-reload',
    }),
  }),
);
