/**
 * Reads settings from a `.env` file with Node's own loader (no dependency): variables already in the
 * environment win, so `PORT=9000 npm start` overrides the file. Node older than 20.12 has no loader;
 * then the file is ignored with a warning rather than half-parsed by hand.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { scanEnvFile } from './scan-env-file.js';

export interface EnvFileOutcome {
  /** The file read, if any. */
  loaded?: string;
  /** The variables the file names (whether or not the environment already had them). */
  keys?: string[];
  /** Lines the loader dropped or misread, each naming its line number: configuration problems. */
  problems?: string[];
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
    // Node's parser, so the keys are exactly the ones its loader read (both came in Node 20.12).
    const parseEnv = (util as { parseEnv?: (content: string) => Record<string, string> }).parseEnv;
    const content = readFileSync(file, 'utf8');
    const parsed = new Set(parseEnv ? Object.keys(parseEnv(content)) : []);
    const scan = scanEnvFile(content);
    // A name Node keeps back (`__proto__`) would otherwise pass unseen; one a bad line glued is already named.
    const dropped = scan.lines.filter(({ key }) => !parsed.has(key));
    return {
      loaded: file,
      keys: scan.lines.filter(({ key }) => parsed.has(key)).map(({ key }) => key),
      problems: [
        ...scan.problems,
        ...dropped.map(({ key, line }) => `.env line ${line}: ${key} is not read by Node's .env loader`),
      ],
    };
  } catch (error) {
    return {
      warning: `${file} could not be read: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
