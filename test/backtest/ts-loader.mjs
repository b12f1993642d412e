// Test-only Node loader: lets forked grid workers (and quick scripts) run the TypeScript sources
// directly, as vitest does in-process. Resolves './x.js' to './x.ts' when only the .ts exists and
// transpiles .ts with the project's own TypeScript (no type check). Register with:
//   node --import ./test/backtest/register-ts.mjs script.ts
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

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
  if (url.endsWith('.ts')) {
    const src = await readFile(fileURLToPath(url), 'utf8');
    const out = ts.transpileModule(src, {
      fileName: fileURLToPath(url),
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false, inlineSourceMap: true },
    });
    return { format: 'module', source: out.outputText, shortCircuit: true };
  }
  return next(url, context);
}
