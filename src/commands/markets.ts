// makerd markets: lists markets from the metadata (Gamma) API as a table or JSON. Useful to pick
// token ids for `config.markets`. Errors from the API become one line (src/cli.ts) and exit 1.
import { parseArgs } from 'node:util';
import { createClients } from '../api/index.js';
import type { GammaMarket } from '../api/schemas.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../core/log.js';
import { UsageError, type CommandModule, numberFlag } from './command.js';

const help = `usage: makerd markets [options]

Lists markets from the market metadata API (MAKERD_GAMMA_URL overrides the address).

options:
  --active              only active markets
  --closed              include closed markets
  --tag T               filter by tag
  --category C          filter by category
  --order volume|liquidity  sort order
  --limit N             at most N markets (default 10)
  --offset N            skip N markets (default 0)
  --json                print the markets as JSON
  --config F            config file merged over config/default.json`;

function num(v: number | string | undefined): string {
  if (v === undefined || v === '') return '-';
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? (Math.abs(n) >= 100 ? n.toFixed(0) : String(n)) : String(v);
}

function row(m: GammaMarket): string[] {
  const q = m.question ?? '';
  return [
    q.length > 50 ? q.slice(0, 49) + '…' : q,
    m.conditionId,
    m.clobTokenIds.join(','),
    num(m.bestBid),
    num(m.bestAsk),
    num(m.volumeNum ?? m.volume),
    num(m.liquidityNum ?? m.liquidity),
    m.endDate ?? '-',
  ];
}

function table(rows: string[][]): string[] {
  const head = ['question', 'condition id', 'token ids', 'bid', 'ask', 'volume', 'liquidity', 'end date'];
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
}

export const command: CommandModule = {
  summary: 'list markets from the market metadata API',
  help,
  async main(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        active: { type: 'boolean' },
        closed: { type: 'boolean' },
        tag: { type: 'string' },
        category: { type: 'string' },
        order: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
        json: { type: 'boolean' },
        config: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.order !== undefined && values.order !== 'volume' && values.order !== 'liquidity') {
      throw new UsageError(`--order must be volume or liquidity, got '${values.order}'`);
    }
    const limit = numberFlag(values.limit, '--limit', { min: 0, integer: true }) ?? 10;
    const offset = numberFlag(values.offset, '--offset', { min: 0, integer: true }) ?? 0;
    const config = loadConfig({ file: values.config, env: io.env });
    // retries are logged only when asked for (debug/trace): a failure should print one line
    const level = config.log.level === 'debug' || config.log.level === 'trace' ? config.log.level : 'error';
    const logger = createLogger({ level, destination: { write: (s: string) => io.err(s.trimEnd()) } });
    // a public listing (the metadata API): no venue credentials read, so none half-set can refuse it
    const clients = createClients(config, undefined, logger);
    try {
      const markets = await clients.gamma.listMarkets({
        active: values.active,
        closed: values.closed,
        tag: values.tag,
        category: values.category,
        order: values.order,
        limit,
        offset,
      });
      if (values.json) io.out(JSON.stringify(markets, null, 2));
      else if (markets.length === 0) io.out('no markets');
      else for (const l of table(markets.map(row))) io.out(l);
      return 0;
    } finally {
      await clients.close();
    }
  },
};
