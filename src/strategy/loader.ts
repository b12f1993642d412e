// Loads a strategy module by name (a built-in under strategies/) or by path to a user's module,
// and validates its params with the module's own zod schema (errors name the key).
import { deepFreeze } from '../core/freeze.js';
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { ConfigError } from '../core/errors.js';
import { parseWith } from '../config.js';
import { syntaxErrorLocation } from './syntax-location.js';
import type { LoadedStrategy, StrategyModule } from '../engine/strategy.js';

export type { LoadedStrategy } from '../engine/strategy.js';

function isModule(x: unknown): x is StrategyModule {
  if (!x || typeof x !== 'object') return false;
  const m = x as Record<string, unknown>;
  return typeof m.name === 'string' && typeof m.create === 'function' && !!m.params && typeof (m.params as { safeParse?: unknown }).safeParse === 'function';
}

/** strategies/<name>.js next to the compiled tree; .ts when running from source (vitest). */
function builtinUrl(name: string): URL | undefined {
  for (const ext of ['.js', '.ts']) {
    const u = new URL(`../../strategies/${name}${ext}`, import.meta.url);
    if (existsSync(fileURLToPath(u))) return u;
  }
  return undefined;
}

/** Node runs JavaScript: a strategy given as its .ts source gets told where the .js is, or how to make it. */
function tsSourceError(url: URL): ConfigError {
  const path = fileURLToPath(url);
  const name = /([A-Za-z0-9_-]+)\.ts$/.exec(path)?.[1];
  const built = name ? builtinUrl(name) : undefined;
  const compiled = built && built.pathname.endsWith('.js') ? `; the built-in '${name}' is compiled at ${fileURLToPath(built)} (or give its name)` : '';
  return new ConfigError('strategy.name', `${path} is TypeScript source: compile it (npm run build compiles strategies/ into dist/strategies/, npx tsc your own) and give the .js${compiled}`);
}

export function resolveStrategy(nameOrPath: string, cwd = process.cwd()): URL {
  const looksLikePath = nameOrPath.includes('/') || nameOrPath.includes('\\') || /\.(m?js|ts)$/.test(nameOrPath);
  if (!looksLikePath) {
    if (!/^[A-Za-z0-9_-]+$/.test(nameOrPath)) throw new ConfigError('strategy.name', `not a strategy name: ${nameOrPath}`);
    const u = builtinUrl(nameOrPath);
    if (!u) throw new ConfigError('strategy.name', `no built-in strategy '${nameOrPath}' under strategies/`);
    return u;
  }
  const p = isAbsolute(nameOrPath) ? nameOrPath : resolve(cwd, nameOrPath);
  if (!existsSync(p)) throw new ConfigError('strategy.name', `strategy module not found: ${p}`);
  return pathToFileURL(p);
}

/** The names of the built-in strategies (the modules under strategies/), sorted. */
export function builtinStrategyNames(): string[] {
  const dir = fileURLToPath(new URL('../../strategies/', import.meta.url));
  if (!existsSync(dir)) return [];
  const names = new Set<string>();
  for (const f of readdirSync(dir)) {
    const m = /^([A-Za-z0-9_-]+)\.(js|ts)$/.exec(f);
    if (m && !f.endsWith('.d.ts')) names.add(m[1]);
  }
  return [...names].sort();
}

/** The strategy module (name, params schema, create) by built-in name or path, not yet given params. */
export async function loadStrategyModule(nameOrPath: string, cwd?: string): Promise<{ module: StrategyModule; url: URL }> {
  const url = resolveStrategy(nameOrPath, cwd);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url.href)) as Record<string, unknown>;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION' && url.pathname.endsWith('.ts')) throw tsSourceError(url);
    // an ES module's syntax error names neither file nor line (nor which module): found by checking the modules it reaches
    const where = url.protocol === 'file:' ? syntaxErrorLocation(fileURLToPath(url)) : undefined;
    throw new ConfigError('strategy.name', `cannot load ${url.pathname}: ${where ?? (e instanceof Error ? e.message : String(e))}`);
  }
  const candidate = mod.default ?? mod.strategy;
  if (!isModule(candidate)) {
    throw new ConfigError('strategy.name', `${url.pathname} does not export a strategy module (default export with name, params, create)`);
  }
  return { module: candidate, url };
}

export async function loadStrategy(nameOrPath: string, params: unknown, cwd?: string): Promise<LoadedStrategy> {
  const { module } = await loadStrategyModule(nameOrPath, cwd);
  const parsed = parseWith(module.params, params ?? {}, 'strategy.params');
  // one object for every market's create() and ctx.params: read-only, so no market changes another's
  // (frozen in place: the schema's output is the strategy's own; a copy would break class instances)
  return { module, params: deepFreeze(parsed) };
}
