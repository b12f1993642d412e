// makerd doctor: the checklist before a first live run. Credentials (a signed read), balance and
// allowance, clock skew against GET /time, the venue's order version (GET /version) against the one
// we sign, each configured market's tick, neg-risk flag and minimum size, and a heartbeat; one line
// per check, exit 0 only when every check passes.
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.js';
import { ApiError } from '../core/errors.js';
import { silentLogger } from '../core/log.js';
import { formatPrice, formatSize } from '../core/units.js';
import { createClients, type Clients } from '../api/index.js';
import type { ClobProfile } from '../api/clob-profile.js';
import { clobProfileFromEnv } from '../api/profile-from-env.js';
import { EXCHANGE_V2, NEG_RISK_EXCHANGE_V2, ORDER_VERSION, exchangeOf, orderVersionProblem } from '../api/polymarket-contracts.js';
import { CLOCK_SKEW_MS, allowanceOf, spendableCollateral } from '../api/clob-client.js';
import { marketsFromQuery, marketsFromTokens } from '../session/markets.js';
import { numberFlag, tokenIdsFlag, venueFailure, type CommandModule } from './command.js';
import { heartbeatIdOf } from '../session/heartbeats.js';

const help = `usage: makerd doctor [--config F] [--markets TOKEN,...] [--max-skew-ms N]

Checks what a live run needs, against the configured venue (venue.profile, MAKERD_VENUE):
  credentials   present in the environment, and accepted (a signed read of our open orders)
  clock         our clock against the venue's GET /time (at most --max-skew-ms, default 5000)
  version       polymarket: the venue's order version (GET /version) is the one makerd signs (${ORDER_VERSION});
                at any other the venue refuses every order
  markets       each token of --markets (else config.markets): its market, tick, neg-risk flag, minimum size
  balance       polymarket: collateral balance and the allowances of the exchanges those markets use
  shares        polymarket: those exchanges may move the wallet's shares (setApprovalForAll); else
                the venue refuses every SELL
  heartbeat     polymarket: the dead-man switch accepts a heartbeat (skipped while orders of ours
                rest: a heartbeat nobody continues has the venue cancel them ~10 s later)
One line per check; exit 1 when any check fails, else 0 (a check skipped is said, and proves
nothing); 2 for a configuration error. A 403 is explained: the venue refuses some regions.`;

type Result = { ok: boolean; detail: string; skipped?: boolean };
interface Check {
  name: string;
  run: () => Promise<Result>;
}

/** One clear line for a failed call. */
function why(err: unknown): string {
  if (err instanceof ApiError && err.status === 401)
    return `the venue refused the credentials (401: ${err.apiMessage}): check MAKERD_API_KEY, MAKERD_API_SECRET, MAKERD_API_PASSPHRASE and that they belong to MAKERD_PRIVATE_KEY's wallet (makerd keys derive)`;
  return venueFailure(err);
}

const exchangeName = (exchange: string): string => (exchange === NEG_RISK_EXCHANGE_V2 ? 'neg-risk exchange' : 'exchange');

function checks(profile: ClobProfile, clients: Clients, tokens: readonly string[], maxSkewMs: number, env: NodeJS.ProcessEnv, maxTotalNotional: number, query: Config['marketQuery']): Check[] {
  const clob = clients.clob;
  const poly = profile.name === 'polymarket';
  let openOrders = -1;
  let negRiskMarkets = 0;
  // the exchanges the markets' orders go to, once every market resolved: the daemon needs only their allowances
  let inUse: Set<string> | undefined;
  // a token of a market on each exchange in use: the venue reads share approvals per token
  const tokenOn = new Map<string, string>();
  const out: Check[] = [
    {
      name: 'credentials',
      run: async () => {
        if (profile.cannotTrade) return { ok: false, detail: profile.cannotTrade };
        const page = await clob.getOrders();
        openOrders = page.data.length;
        return { ok: true, detail: `accepted (signed read of open orders: ${openOrders}${page.next_cursor && page.next_cursor !== 'LTE=' ? '+' : ''})` };
      },
    },
    {
      name: 'clock',
      run: async () => {
        if (!poly) return { ok: true, skipped: true, detail: 'the spec interface has no GET /time' };
        const skew = await clob.clockSkewMs();
        // the venue's clock has second resolution: allow that much on top
        const ok = Math.abs(skew) <= maxSkewMs + 1000;
        return { ok, detail: `${skew >= 0 ? 'ahead of' : 'behind'} the venue by ${Math.abs(skew)} ms${ok ? '' : ` (more than ${maxSkewMs} ms: signed requests may be refused; sync the clock)`}` };
      },
    },
    {
      name: 'version',
      run: async () => {
        if (!poly) return { ok: true, skipped: true, detail: 'the spec interface has no GET /version' };
        const version = await clob.getOrderVersion();
        const problem = orderVersionProblem(version);
        return problem ? { ok: false, detail: problem } : { ok: true, detail: `venue order version ${version}, the version makerd signs` };
      },
    },
  ];
  out.push({
    name: 'markets',
    run: async () => {
      // as the daemon picks them: the tokens given, else the metadata query
      if (!tokens.length && !query.enabled) return { ok: false, detail: 'no markets configured: give --markets, config.markets or config.marketQuery' };
      const metas = tokens.length ? await marketsFromTokens(clob, tokens, silentLogger) : await marketsFromQuery(clients.gamma, clob, query, silentLogger);
      if (!metas.length) return { ok: false, detail: 'the metadata query (config.marketQuery) picked no market' };
      const lines: string[] = [];
      const exchanges = new Set<string>();
      let ok = true;
      for (const m of metas) {
        const tick = await clob.getTickSize(m.tokenId);
        const neg = await clob.getNegRisk(m.tokenId);
        if (neg) negRiskMarkets++;
        // the daemon signs for the market's flag; should /neg-risk disagree, both are asked for
        exchanges.add(exchangeOf(m.negRisk)).add(exchangeOf(neg));
        for (const e of [exchangeOf(m.negRisk), exchangeOf(neg)]) if (!tokenOn.has(e)) tokenOn.set(e, m.tokenId);
        const agree = tick === m.tick && neg === m.negRisk;
        ok &&= agree;
        lines.push(
          `${m.conditionId} tick ${formatPrice(m.tick)} neg-risk ${m.negRisk} min size ${formatSize(m.minSize)}${agree ? '' : ` (the token's /tick-size ${formatPrice(tick)} and /neg-risk ${neg} disagree)`}`,
        );
      }
      inUse = exchanges;
      return { ok, detail: lines.join('; ') };
    },
  });
  if (poly) {
    out.push({
      name: 'balance',
      run: async () => {
        const b = await clob.getBalanceAllowance();
        if (!b) return { ok: false, detail: 'this profile has no balance read' };
        const allowance = (exchange: string): bigint => allowanceOf(b, exchange) ?? 0n;
        const balance = BigInt(b.balance);
        const exchanges = [EXCHANGE_V2, NEG_RISK_EXCHANGE_V2].map((a) => [exchangeName(a), a] as const);
        // markets resolved: only their exchanges (a neg-risk-only wallet need not approve the other);
        // else, as ever, the plain exchange and the neg-risk one if a market seen was neg-risk
        const need = inUse ? exchanges.filter(([, a]) => inUse?.has(a)) : exchanges.filter(([n]) => n === 'exchange' || negRiskMarkets > 0);
        const missing = need.filter(([, a]) => allowance(a) === 0n).map(([n]) => n);
        const usd = (v: bigint): string => `${v / 1_000_000n}.${String(v % 1_000_000n).padStart(6, '0')}`;
        const dollars = usd(balance);
        if (balance === 0n) return { ok: false, detail: `collateral balance 0: fund the ${env.MAKERD_FUNDER ? 'funder (MAKERD_FUNDER)' : 'wallet'}` };
        if (missing.length) return { ok: false, detail: `balance ${dollars}, but no allowance for the ${missing.join(' and ')}: approve it from the wallet` };
        // the daemon keeps open BUYs within the balance or the least allowance, whichever is lower
        // (risk.collateralReadMs): a smaller wallet or approval than the limits quotes less
        const low = need.filter(([, a]) => allowance(a) < balance);
        const { spendable } = spendableCollateral(
          b,
          need.map(([, a]) => a),
        );
        const capped = low.length
          ? `; ${low.map(([n, a]) => `the ${n}'s allowance ${usd(allowance(a))}`).join(' and ')} below the balance: open BUYs will be capped at ${usd(spendable)} (approve more from the wallet)`
          : balance < BigInt(Math.round(maxTotalNotional * 1e6))
            ? `; below risk.maxTotalNotional ($${maxTotalNotional}): open BUYs will be capped at the balance`
            : '';
        return { ok: true, detail: `balance ${dollars}, allowances set${capped}` };
      },
    });
    out.push({
      name: 'shares',
      run: async () => {
        // a SELL needs the exchange's approval of the wallet's shares (the conditional tokens'
        // setApprovalForAll), apart from the collateral allowance: without it the venue refuses
        // every SELL "not enough balance / allowance", and a daemon holding shares cannot sell them
        if (!tokenOn.size) return { ok: true, skipped: true, detail: 'no market resolved: the approval is read with one of its tokens' };
        // the answer's shape for shares is in no real capture: only an allowance named 0 fails; one
        // not named at all (per exchange or as a lone figure) proves nothing either way
        const missing: string[] = [];
        const unnamed: string[] = [];
        for (const [exchange, token] of tokenOn) {
          const b = await clob.getSharesBalance(token);
          if (!b) return { ok: false, detail: 'this profile has no share balance read' };
          const a = allowanceOf(b, exchange);
          if (a === undefined) unnamed.push(exchangeName(exchange));
          else if (a === 0n) missing.push(exchangeName(exchange));
        }
        const names = [...tokenOn.keys()].map(exchangeName).join(' and ');
        if (missing.length) {
          return {
            ok: false,
            detail: `the wallet has not approved the ${missing.join(' and ')} to move its shares: every SELL would be refused (not enough balance / allowance); approve the conditional tokens from the wallet (setApprovalForAll)`,
          };
        }
        if (unnamed.length) return { ok: true, skipped: true, detail: `the venue's answer names no allowance of the wallet's shares for the ${unnamed.join(' and ')}` };
        return { ok: true, detail: `the ${names} may move the wallet's shares: SELLs can rest` };
      },
    });
  }
  if (poly) {
    out.push({
      name: 'heartbeat',
      run: async () => {
        if (profile.cannotTrade) return { ok: false, detail: 'needs the credentials' };
        if (openOrders > 0) return { ok: true, skipped: true, detail: `${openOrders} orders of ours rest; a heartbeat nobody continues would have the venue cancel them` };
        // not read: orders may rest unseen, and the chain this would start would have them cancelled
        if (openOrders < 0) return { ok: true, skipped: true, detail: 'our open orders could not be read; a heartbeat nobody continues would have the venue cancel any that rest' };
        // a chain still open at the venue (a run a few seconds ago) is continued with the id its refusal names
        const id = await clob.postHeartbeat('').catch((err: unknown) => {
          const next = heartbeatIdOf(err);
          if (next === undefined) throw err;
          return clob.postHeartbeat(next);
        });
        return { ok: true, detail: `accepted (id ${id.slice(0, 12)}); the venue cancels our orders ~10 s after the last one` };
      },
    });
  }
  return out;
}

export const command: CommandModule = {
  summary: 'check credentials, balance, clock, markets and heartbeats before a first live run',
  help,
  async main(argv, io) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string' }, markets: { type: 'string' }, 'max-skew-ms': { type: 'string' } }, strict: true, allowPositionals: false });
    // flags checked before anything is asked of the venue, as run checks them (one parser)
    const given = tokenIdsFlag(values.markets, '--markets');
    const maxSkewMs = numberFlag(values['max-skew-ms'], '--max-skew-ms', { min: 0, integer: true }) ?? CLOCK_SKEW_MS;
    const config = loadConfig({ file: values.config, env: io.env });
    const profile = await clobProfileFromEnv(config, io.env);
    const tokens = given ?? config.markets;
    const clients = createClients(config, profile);
    io.out(`makerd doctor: venue profile ${profile.name}, CLOB ${config.urls.clob}`);
    let failed = 0;
    const skipped: string[] = [];
    try {
      for (const c of checks(profile, clients, tokens, maxSkewMs, io.env, config.risk.maxTotalNotional, config.marketQuery)) {
        let r: Result;
        try {
          r = await c.run();
        } catch (err) {
          r = { ok: false, detail: why(err) };
        }
        if (!r.ok) failed++;
        else if (r.skipped) skipped.push(c.name);
        io.out(`${r.skipped ? 'skip' : r.ok ? 'ok  ' : 'FAIL'} ${c.name.padEnd(12)} ${r.detail}`);
      }
    } finally {
      await clients.close();
    }
    // a skipped check proved nothing: said, not counted as passed (nor as failed: exit 0)
    const skips = skipped.length ? `; not checked: ${skipped.join(', ')}` : '';
    io.out(failed ? `${failed} check(s) failed${skips}` : skipped.length ? `no check failed${skips}` : 'every check passed');
    return failed ? 1 : 0;
  },
};
