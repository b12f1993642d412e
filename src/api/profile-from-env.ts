// The CLOB profile a command runs with: venue.profile (or MAKERD_VENUE) picks it, and its
// credentials come from the environment only (never a config file, never a log line).
import type { Config } from '../config.js';
import { apiKeyFromEnv } from '../config.js';
import { specProfile, type ClobProfile } from './clob-profile.js';
import { polymarketCredentialsFromEnv } from './polymarket-credentials.js';
import { polymarketProfile } from './polymarket-profile.js';

/** The configured profile with the environment's credentials (a malformed one: ConfigError naming the variable). */
export function clobProfileFromEnv(config: Config, env: NodeJS.ProcessEnv): ClobProfile {
  return config.venue.profile === 'polymarket' ? polymarketProfile(polymarketCredentialsFromEnv(env)) : specProfile(apiKeyFromEnv(env));
}
