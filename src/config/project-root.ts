import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (this file sits in src/config/ or dist/config/), so bundled files are found from any working directory. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
