// `node -r ./scripts/register-ts.js bench/tools/top-frames.ts <file.cpuprofile> [count]`: the functions with the
// most self time in a V8 CPU profile (from `node --cpu-prof`), grouped by function and location.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, count = '25'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const frameOf = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
const selfUs = new Map<string, number>();
let totalUs = 0;
profile.samples.forEach((id, i) => {
  const frame = frameOf.get(id)!;
  const url = frame.url.startsWith('file://') ? relative(process.cwd(), frame.url.slice(7)) : frame.url;
  const name = `${frame.functionName || '(anonymous)'} ${url ? `${url}:${frame.lineNumber + 1}` : ''}`.trim();
  const delta = profile.timeDeltas[i] ?? 0;
  selfUs.set(name, (selfUs.get(name) ?? 0) + delta);
  totalUs += delta;
});
const busyUs = totalUs - (selfUs.get('(idle)') ?? 0);
process.stdout.write(`busy ${(busyUs / 1000).toFixed(0)} ms of ${(totalUs / 1000).toFixed(0)} ms sampled\n`);
for (const [name, us] of [...selfUs]
  .filter(([n]) => n !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(count))) {
  process.stdout.write(`${((us / busyUs) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
}
