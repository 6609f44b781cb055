import { it } from 'vitest';
import { cboms, readCbom } from './cbom-fixtures';
it('dump', async () => {
  const out: string[] = [];
  for (const path of Object.keys(cboms)) {
    const file = path.split('/').pop()!;
    const { findings } = await readCbom(file);
    const tally = new Map<string, number>();
    for (const f of findings) {
      if (f.assetType !== 'certificate' && f.assetType !== 'related-crypto-material') continue;
      const k = `['${f.assetType === 'certificate' ? 'certificate' : 'key'}', '${f.algorithm ?? f.name}', '${f.section}', '${f.deadline}', ${f.trustAnchor ?? 'null'}]`;
      tally.set(k, (tally.get(k) ?? 0) + 1);
    }
    out.push(`'${file}': [`);
    for (const [k, n] of [...tally].sort()) out.push(`  ${k.slice(0, -1)}, ${n}],`);
    out.push('],');
  }
  console.log(out.join('\n'));
});
