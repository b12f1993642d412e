// The CLOB profile a command runs with: venue.profile (or MAKERD_VENUE) picks it, and its
// credentials come from the environment only (never a config file, never a log line). The
// polymarket profile (viem's signing) is loaded only when it is the one picked.
import type { Config } from '../config.js';
import { apiKeyFromEnv } from '../config.js';
import { specProfile, type ClobProfile } from './clob-profile.js';
import { polymarketCredentialsFromEnv } from './polymarket-credentials.js';

/** The configured profile with the environment's credentials (a malformed one: ConfigError naming the variable). */
export async function clobProfileFromEnv(config: Config, env: NodeJS.ProcessEnv): Promise<ClobProfile> {
  if (config.venue.profile !== 'polymarket') return specProfile(apiKeyFromEnv(env));
  // the credentials are checked before viem loads: a malformed one fails as fast as before
  const credentials = polymarketCredentialsFromEnv(env);
  const { polymarketProfile } = await import('./polymarket-profile.js');
  return polymarketProfile(credentials);
}
