// Test-only Node loader: lets forked grid workers (and quick scripts) run the TypeScript sources
// directly, as vitest does in-process. Resolves './x.js' to './x.ts' when only the .ts exists and
// transpiles .ts with the project's own TypeScript (no type check). Transpiled output is cached in
// the temp folder by path, size and mtime, so a worker that finds it warm never loads TypeScript.
// Register with: node --import ./test/backtest/register-ts.mjs script.ts
import { readFile, writeFile, mkdir, stat, rename } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CACHE = join(tmpdir(), 'makerd-ts-loader-cache');
let ts;

export async function resolve(specifier, context, next) {
  if ((specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:')) && specifier.endsWith('.js') && context.parentURL) {
    const url = new URL(specifier, context.parentURL);
    if (!existsSync(fileURLToPath(url))) {
      const tsUrl = new URL(url.href.replace(/\.js$/, '.ts'));
      if (existsSync(fileURLToPath(tsUrl))) return { url: tsUrl.href, shortCircuit: true, format: 'module' };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const path = fileURLToPath(url);
  const st = await stat(path);
  const key = createHash('sha1').update(`${path}|${st.size}|${st.mtimeMs}`).digest('hex');
  const cached = join(CACHE, `${key}.js`);
  try {
    return { format: 'module', source: await readFile(cached, 'utf8'), shortCircuit: true };
  } catch {
    // not cached yet
  }
  ts ??= (await import('typescript')).default;
  const src = await readFile(path, 'utf8');
  const out = ts.transpileModule(src, {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false, inlineSourceMap: true },
  });
  await mkdir(CACHE, { recursive: true });
  // write then rename: a concurrent reader never sees half a file
  const tmp = `${cached}.${process.pid}.tmp`;
  await writeFile(tmp, out.outputText);
  await rename(tmp, cached);
  return { format: 'module', source: out.outputText, shortCircuit: true };
}
