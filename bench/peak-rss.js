// Preloaded into a timed node child by bench/lib.js (NODE_OPTIONS=--import): writes the process's peak resident set
// (getrusage ru_maxrss, KiB) and its CPU time (user and system, µs) as JSON to OBFLOW_BENCH_PEAK_RSS_FILE when it exits. Children it spawns inherit NODE_OPTIONS but
// not the variable (removed here), so only the process the bench started writes the file.
import { writeFileSync } from 'node:fs';

const file = process.env.OBFLOW_BENCH_PEAK_RSS_FILE;
if (file) {
  delete process.env.OBFLOW_BENCH_PEAK_RSS_FILE;
  process.on('exit', () => {
    try {
      const usage = process.resourceUsage();
      writeFileSync(file, JSON.stringify({ maxRSS: usage.maxRSS, user: usage.userCPUTime, system: usage.systemCPUTime }));
    } catch {
      // the bench reports NaN
    }
  });
}
