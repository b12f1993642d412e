// makerd keys derive: obtains the Polymarket API credentials (L2) with the wallet's L1 signature
// (MAKERD_PRIVATE_KEY) and prints the lines to export. Creates them (POST /auth/api-key), or
// derives the existing ones (GET /auth/derive-api-key) when the venue has them already.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { ConfigError, MakerdError } from '../core/errors.js';
import { createClients } from '../api/index.js';
import { l1Headers } from '../api/polymarket-auth.js';
import { polymarketCredentialsFromEnv } from '../api/polymarket-credentials.js';
import { UsageError, type CommandModule, numberFlag, venueFailure } from './command.js';

const help = `usage: makerd keys derive [--config F] [--nonce N]

Signs the venue's ClobAuth message with MAKERD_PRIVATE_KEY (EIP-712, chain 137) and asks the CLOB
(urls.clob, or MAKERD_CLOB_URL) for the API credentials of that wallet: created when it has none,
derived when it has. Prints the three lines to export (MAKERD_API_KEY, MAKERD_API_SECRET,
MAKERD_API_PASSPHRASE); keep them out of shell history and config files.`;

interface KeyAnswer {
  apiKey?: unknown;
  secret?: unknown;
  passphrase?: unknown;
}

export const command: CommandModule = {
  summary: 'derive the Polymarket API credentials of MAKERD_PRIVATE_KEY and print the lines to export',
  help,
  async main(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, options: { config: { type: 'string' }, nonce: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals[0] !== 'derive' || positionals.length !== 1) throw new UsageError('the subcommand is derive: makerd keys derive');
    // a safe integer (9007199254740993 would be read as ...992: another nonce, other credentials)
    const nonce = numberFlag(values.nonce, '--nonce', { min: 0, integer: true }) ?? 0;
    const config = loadConfig({ file: values.config, env: io.env });
    // L1 auth needs the key alone: a signature type or funder not set yet (or wrong) is not this command's business
    const creds = polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: io.env.MAKERD_PRIVATE_KEY });
    if (!creds.privateKey) throw new ConfigError('MAKERD_PRIVATE_KEY', 'keys derive needs it in the environment (the wallet that signs)');
    const clients = createClients(config);
    try {
      const ask = async (method: 'POST' | 'GET', path: string): Promise<KeyAnswer> => {
        const headers = await l1Headers(creds.privateKey as `0x${string}`, Math.floor(Date.now() / 1000), nonce);
        return (await clients.clob.transport.request({ method, path, headers })) as KeyAnswer;
      };
      let got: KeyAnswer;
      // the create's refusal (a wallet that has credentials already, usually) is named should the derive fail too:
      // a clock the L1 signature's timestamp is refused for, or a region, is then not hidden behind "nothing to derive"
      let createFailed: unknown;
      try {
        got = await ask('POST', '/auth/api-key');
      } catch (e) {
        createFailed = e;
        got = {};
      }
      if (typeof got.apiKey !== 'string' || !got.apiKey) {
        try {
          got = await ask('GET', '/auth/derive-api-key');
        } catch (e) {
          if (createFailed === undefined) throw e;
          const create = venueFailure(createFailed);
          const derive = venueFailure(e);
          throw new MakerdError(create === derive ? create : `the venue neither created nor derived the credentials: ${create}; ${derive}`);
        }
      }
      if (typeof got.apiKey !== 'string' || typeof got.secret !== 'string' || typeof got.passphrase !== 'string') {
        throw new MakerdError('the venue answered without apiKey, secret and passphrase');
      }
      // the lines are for eval: a value with a shell's characters ($, `, ;, a quote, a blank) from a hostile
      // or broken MAKERD_CLOB_URL would run a command where MAKERD_PRIVATE_KEY is; a key, base64 and a passphrase need none
      for (const [name, v] of [
        ['apiKey', got.apiKey],
        ['secret', got.secret],
        ['passphrase', got.passphrase],
      ] as const) {
        if (!/^[A-Za-z0-9_.+/=-]{1,200}$/.test(v)) throw new MakerdError(`the venue's ${name} holds characters a credential never does: refused (these lines are for eval); check MAKERD_CLOB_URL`);
      }
      // unscrubbed: with the same credentials already exported, out() would print [redacted] for eval to take
      const print = io.secret ?? io.out;
      print(`export MAKERD_API_KEY=${got.apiKey}`);
      print(`export MAKERD_API_SECRET=${got.secret}`);
      print(`export MAKERD_API_PASSPHRASE=${got.passphrase}`);
      return 0;
    } finally {
      await clients.close();
    }
  },
};
