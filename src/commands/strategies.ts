// makerd strategies [NAME]: each built-in strategy (or the one named, or a module given by path)
// with its parameters: path, type, default and description, all read from the strategy's own
// zod schema (src/strategy/params.ts), so the listing cannot drift from what the strategy accepts.
import { parseArgs } from 'node:util';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../core/errors.js';
import { builtinStrategyNames, loadStrategyModule } from '../strategy/loader.js';
import { describeParams } from '../strategy/params.js';
import { UsageError, type CommandIO, type CommandModule } from './command.js';

const help = `usage: makerd strategies [NAME]

Lists each built-in strategy (strategies/) with its parameters, or only NAME: a built-in name or
the path to a strategy module (compiled .js). For each parameter: its path, type (with bounds),
default and description, read from the strategy's params schema. A path names a nested field with
dots and a list element by its index from 0 (shown as N); sweep any of them with backtest --grid
(e.g. --grid 'bands.0.distance=0.01,0.02').

examples:
  makerd strategies
  makerd strategies bands
  makerd strategies dist/strategies/avellaneda.js
`;

function section(name: string, where: string, schema: unknown): string[] {
  const d = describeParams(schema);
  const lines = [`${name}  (${where})`];
  if (!d) {
    lines.push('  its params schema is not a zod schema: parameters cannot be listed');
    return lines;
  }
  if (d.summary) lines.push(`  ${d.summary}`);
  if (!d.params.length) {
    lines.push('  no parameters');
    return lines;
  }
  const rows = [['path', 'type', 'default', 'description'], ...d.params.map((p) => [p.path, p.type, p.default, p.description])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  lines.push('');
  for (const r of rows) lines.push(`  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}`.trimEnd());
  return lines;
}

export const command: CommandModule = {
  summary: "list the strategies and their parameters (path, type, default, description) from each one's schema",
  help,
  async main(argv: string[], io: CommandIO) {
    const { positionals } = parseArgs({ args: argv, options: {}, strict: true, allowPositionals: true });
    if (positionals.length > 1) throw new UsageError('give at most one strategy name or module path');
    const names = positionals.length ? positionals : builtinStrategyNames();
    const out: string[] = [];
    for (const name of names) {
      let loaded;
      try {
        loaded = await loadStrategyModule(name);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        io.err(`makerd strategies: ${e.reason}${positionals.length ? ` (built-in: ${builtinStrategyNames().join(', ')})` : ''}`);
        return 2;
      }
      const file = fileURLToPath(loaded.url);
      const builtin = !positionals.length || builtinStrategyNames().includes(name);
      const where = builtin ? `built-in: strategies/${basename(file)}` : file;
      if (out.length) out.push('');
      out.push(...section(loaded.module.name, where, loaded.module.params));
    }
    out.push('', "Paths go in --params (JSON) or a backtest sweep, N being a list index from 0: makerd backtest --data F --grid 'bands.0.distance=0.01,0.02'");
    io.out(out.join('\n'));
    return 0;
  },
};
