// Loaded with --require into a benchmarked server (started with --expose-gc): on SIGUSR2 it collects
// garbage and prints the heap in use, so the benchmark can measure what stays behind per call.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  process.stdout.write(`${JSON.stringify({ heapUsed: process.memoryUsage().heapUsed })}\n`);
});
