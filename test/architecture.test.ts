// The import graph of src/ (issue 11, item 3): no cycle between files, and no folder importing a
// folder above it. Layers, lowest first; a folder may import its own layer and those below.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

const LAYERS: string[][] = [
  ['core', 'config.ts'],
  ['book'],
  ['feed'],
  ['api'],
  ['venue'],
  ['engine'],
  ['store', 'report', 'strategy'],
  ['status', 'backtest', 'emulator'],
  ['session'],
  ['commands', 'bench'],
  ['cli.ts'],
];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (n.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every relative import of every file (type-only ones too), as src-relative .ts paths. */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(SRC)) {
    const text = readFileSync(f, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)) {
      deps.push(relative(SRC, normalize(join(dirname(f), m[1]))).replace(/\.js$/, '.ts'));
    }
    g.set(relative(SRC, f), deps);
  }
  return g;
}

const folderOf = (file: string): string => (file.includes('/') ? file.split('/')[0] : file);
const layerOf = (folder: string): number => LAYERS.findIndex((l) => l.includes(folder));

describe('architecture', () => {
  const g = graph();

  it('every folder has a layer', () => {
    const unknown = [...new Set([...g.keys()].map(folderOf))].filter((f) => layerOf(f) < 0);
    expect(unknown).toEqual([]);
  });

  it('no folder imports a folder above it', () => {
    const up: string[] = [];
    for (const [file, deps] of g) {
      for (const d of deps) if (layerOf(folderOf(d)) > layerOf(folderOf(file))) up.push(`${file} -> ${d}`);
    }
    expect(up).toEqual([]);
  });

  it('no import cycle between files', () => {
    // Tarjan's strongly connected components: any with two files or more is a cycle
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      idx.set(v, index);
      low.set(v, index++);
      stack.push(v);
      on.add(v);
      for (const w of g.get(v) ?? []) {
        if (!g.has(w)) continue;
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          on.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1) cycles.push(comp.sort());
      }
    };
    for (const v of g.keys()) if (!idx.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });
});
