/**
 * Reads settings from a `.env` file with Node's own loader (no dependency): variables already in the
 * environment win, so `PORT=9000 npm start` overrides the file. Node older than 20.12 has no loader;
 * then the file is ignored with a warning rather than half-parsed by hand.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface EnvFileOutcome {
  /** The file read, if any. */
  loaded?: string;
  /** Why an existing file was not read. */
  warning?: string;
}

export function loadEnvFile(file = path.resolve('.env')): EnvFileOutcome {
  if (!existsSync(file)) return {};
  const loader = (process as { loadEnvFile?: (file: string) => void }).loadEnvFile;
  if (typeof loader !== 'function') {
    return {
      warning: `${file} was not read: Node ${process.versions.node} has no .env loader (Node 20.12 or newer has); export its settings instead`,
    };
  }
  try {
    loader.call(process, file);
    return { loaded: file };
  } catch (error) {
    return {
      warning: `${file} could not be read: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
