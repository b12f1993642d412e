// Issue 13, item 4: `makerd strategies [NAME]` lists each built-in strategy (or a module given by
// path) with its parameters: path, type, default and description, all read from the strategy's
// zod schema (its .describe() texts), never from a table kept beside it.
import { describe, it, expect } from 'vitest';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { cli } from '../../src/cli.js';
import { tempDir } from '../backtest/helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILTINS = readdirSync(join(ROOT, 'strategies'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every field of a zod object schema as [path, field schema], array elements as `name.N.field`. */
function fields(schema: z.ZodType, prefix = ''): Array<[string, z.ZodType]> {
  const out: Array<[string, z.ZodType]> = [];
  let s = schema as z.ZodType & { unwrap?: () => z.ZodType };
  while (s instanceof z.ZodDefault || s instanceof z.ZodOptional) s = s.unwrap() as typeof s;
  if (s instanceof z.ZodObject) {
    for (const [k, v] of Object.entries(s.shape as Record<string, z.ZodType>)) {
      out.push([prefix + k, v]);
      out.push(...fields(v, `${prefix}${k}.`));
    }
  } else if (s instanceof z.ZodArray) {
    out.push(...fields(s.element as z.ZodType, `${prefix}N.`));
  }
  return out;
}

/** The row of `path` in the section of `name`. */
function row(out: string, name: string, path: string): string | undefined {
  const sections = out.split(/\n(?=\S)/);
  const section = sections.find((s) => s.startsWith(`${name} `) || s.startsWith(`${name}\n`)) ?? '';
  return section
    .split('\n')
    .slice(1)
    .find((l) => l.trimStart().startsWith(`${path} `));
}

describe('makerd strategies', () => {
  it('lists every built-in strategy with every parameter: path, type, default and the description from its schema', async () => {
    const r = await run(['strategies']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(BUILTINS).toEqual(expect.arrayContaining(['avellaneda', 'bands', 'template']));
    for (const name of BUILTINS) {
      const mod = (await import(`../../strategies/${name}.ts`)) as { default: { params: z.ZodType } };
      const all = fields(mod.default.params);
      expect(all.length, name).toBeGreaterThan(0);
      for (const [path, f] of all) {
        const line = row(r.out, name, path);
        expect(line, `${name} ${path}`).toBeDefined();
        // every field of a built-in schema is described, and the listing shows that text
        const described = f.description ?? (f as z.ZodType & { unwrap?: () => z.ZodType }).unwrap?.().description;
        expect(described, `${name} ${path} has no .describe()`).toMatch(/\S/);
        expect(line, `${name} ${path}`).toContain(described!);
      }
    }
    // types and defaults as the schema says
    expect(row(r.out, 'bands', 'minSpread')).toMatch(/^\s*minSpread\s+number >= 0\s+0\.01\s+\S/);
    expect(row(r.out, 'bands', 'fair')).toMatch(/^\s*fair\s+mid \| microprice\s+mid\s/);
    expect(row(r.out, 'bands', 'bands')).toMatch(/\[\{"distance":0\.01,"size":10\}\]/);
    expect(row(r.out, 'bands', 'bands.N.distance')).toMatch(/number in \(0, 0\.5\]/);
    expect(row(r.out, 'avellaneda', 'gamma')).toMatch(/^\s*gamma\s+number > 0\s+0\.1\s/);
    expect(row(r.out, 'template', 'edgeTicks')).toMatch(/^\s*edgeTicks\s+integer >= 0\s+1\s/);
    expect(r.out).toContain("--grid 'bands.0.distance=0.01,0.02'");
  });

  it('shows one strategy by name, and a module given by path, derived from its schema', async () => {
    const one = await run(['strategies', 'avellaneda']);
    expect(one.code).toBe(0);
    expect(one.out).toMatch(/^avellaneda /);
    expect(one.out).not.toMatch(/^bands /m);
    const dir = tempDir('strategies-cmd');
    const file = join(dir, 'mine.ts');
    writeFileSync(
      file,
      `import { z } from 'zod';
export default {
  name: 'mine',
  params: z.strictObject({
    width: z.number().int().min(1).max(9).default(3).describe('how wide, in ticks'),
    legs: z.array(z.strictObject({ ratio: z.number().gt(0).describe('share of the size') })).default([{ ratio: 1 }]).describe('the legs'),
  }).describe('A test strategy.'),
  create: () => ({ quote: () => [] }),
};
`,
    );
    const mine = await run(['strategies', file]);
    expect(mine.err).toBe('');
    expect(mine.code).toBe(0);
    expect(mine.out).toMatch(/^mine /);
    expect(mine.out).toContain('A test strategy.');
    expect(row(mine.out, 'mine', 'width')).toMatch(/^\s*width\s+integer in \[1, 9\]\s+3\s+how wide, in ticks$/);
    expect(row(mine.out, 'mine', 'legs.N.ratio')).toMatch(/^\s*legs\.N\.ratio\s+number > 0\s+\(required\)\s+share of the size$/);
  });

  it('exits 2 with one line for an unknown strategy', async () => {
    const r = await run(['strategies', 'nope']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no built-in strategy 'nope'/);
    expect(r.err.split('\n')).toHaveLength(1);
  });
});
