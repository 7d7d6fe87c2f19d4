/**
 * Runs the real `moviedb-mcp` command, the built dist/main.js that `bin` names, as a child process in a
 * scratch folder with a clean environment: only PATH, HOME and what the test passes. The suite's global
 * setup (test/helpers/build-dist.ts) rebuilds dist/ first when a source is newer, so this is the current
 * source; through tsx every start spent about 5 s of CPU transpiling src/ again.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const MAIN = path.resolve(import.meta.dirname, '../../dist/main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Working folder (where .env is looked for); a fresh empty one by default. */
  cwd?: string;
  /** Modules loaded before main (node --import), e.g. a probe of what the process loads. */
  preload?: string[];
}

export function scratchDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'moviedb-cli-'));
}

export function spawnCli(args: string[], options: CliOptions = {}): ChildProcessWithoutNullStreams {
  const preload = (options.preload ?? []).flatMap((module) => ['--import', module]);
  return spawn(process.execPath, [...preload, MAIN, ...args], {
    cwd: options.cwd ?? scratchDir(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
  });
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Resolves with the first stdout line that matches, or rejects when the process exits first. */
export function waitForLine(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) {
        child.stdout.off('data', onData);
        resolve(line);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before printing ${pattern}: ${buffered}`)),
    );
  });
}
