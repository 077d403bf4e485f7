// `node --import ./reportPeak.mjs ...`: when the process exits, writes its peak RSS (bytes)
// and CPU seconds as JSON to the file named by CLOUDUNITS_BENCH_PEAK (the bench reads it).
import { writeFileSync } from "node:fs";

const file = process.env.CLOUDUNITS_BENCH_PEAK;
if (file) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({
        peakRssBytes: usage.maxRSS * 1024,
        cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      }),
    );
  });
}
