// Loaded with --require into a benchmarked server (started with --expose-gc): on SIGUSR2 it collects
// garbage and prints the heap in use and the CPU time used so far, so the benchmark can measure what
// stays behind per call and what a call costs the server.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const { user, system } = process.cpuUsage();
  process.stdout.write(
    `${JSON.stringify({ heapUsed: process.memoryUsage().heapUsed, cpuMicros: user + system })}\n`,
  );
});
