/**
 * V8's optimizing compiler (TurboFan) held off while the process starts, and let go once it serves.
 * Start-up runs much code a few hundred times and never again (module bodies, config and SDL parsing,
 * migrations, the catalogue's schemas): V8 optimized about 130 such functions, 0.75 s of compiler CPU
 * on its worker threads, whose scratch memory (zones) glibc then kept in those threads' arenas: 5 to
 * 13 MiB of an idle server's resident set, and 2 more of the compiler's own code paged in. Functions
 * that are hot once the server serves are optimized then, as before: `--turbofan` is read at each
 * tier-up decision, so turning it back on needs nothing else.
 */
import { setFlagsFromString } from 'node:v8';

export function holdOptimizingCompiler(): void {
  setFlagsFromString('--no-turbofan');
}

export function releaseOptimizingCompiler(): void {
  setFlagsFromString('--turbofan');
}
